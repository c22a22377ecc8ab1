import { updateEvaluator } from "../../services/evaluators/update-evaluator.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("updateEvaluator", async (c) => {
  const { promptId, evaluatorId } = c.req.valid("param");
  return c.json(await updateEvaluator(c.var.ctx, promptId, evaluatorId, c.req.valid("json")), 200);
});
