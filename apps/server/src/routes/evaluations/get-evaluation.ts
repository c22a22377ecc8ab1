import { getEvaluation } from "../../services/evaluations/get-evaluation.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("getEvaluation", async (c) => {
  return c.json(await getEvaluation(c.var.ctx, c.req.valid("param")), 200);
});
