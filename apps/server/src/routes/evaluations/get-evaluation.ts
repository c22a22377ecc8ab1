import { getEvaluation } from "../../services/evaluations/get-evaluation.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("getEvaluation", async (c) => {
  const { promptId, evaluationId } = c.req.valid("param");
  return c.json(await getEvaluation(c.var.ctx, promptId, evaluationId), 200);
});
