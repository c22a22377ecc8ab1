import { deleteEvaluator } from "../../services/evaluators/delete-evaluator.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("deleteEvaluator", async (c) => {
  const { promptId, evaluatorId } = c.req.valid("param");
  await deleteEvaluator(c.var.ctx, promptId, evaluatorId);
  return c.body(null, 204);
});
