import { cancelEvaluation } from "../../services/evaluations/cancel-evaluation.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("cancelEvaluation", async (c) => {
  return c.json(await cancelEvaluation(c.var.ctx, c.req.valid("param")), 200);
});
