import { deleteEvaluator } from "../../services/evaluators/delete-evaluator.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("deleteEvaluator", async (c) => {
  await deleteEvaluator(c.var.ctx, c.req.valid("param"));
  return c.body(null, 204);
});
