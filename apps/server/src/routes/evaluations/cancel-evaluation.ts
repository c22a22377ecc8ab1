import { cancelEvaluation } from "../../services/evaluations/cancel-evaluation.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("cancelEvaluation", async (c) => {
  const { promptId, evaluationId } = c.req.valid("param");
  return c.json(await cancelEvaluation(c.var.ctx, promptId, evaluationId), 200);
});
