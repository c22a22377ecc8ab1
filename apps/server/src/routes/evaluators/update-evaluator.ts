import { updateEvaluator } from "../../services/evaluators/update-evaluator.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("updateEvaluator", async (c) => {
  return c.json(await updateEvaluator(c.var.ctx, c.req.valid("param"), c.req.valid("json")), 200);
});
