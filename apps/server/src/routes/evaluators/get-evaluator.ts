import { getEvaluator } from "../../services/evaluators/get-evaluator.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("getEvaluator", async (c) => {
  return c.json(await getEvaluator(c.var.ctx, c.req.valid("param")), 200);
});
