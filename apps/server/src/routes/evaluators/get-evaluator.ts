import { getEvaluator } from "../../services/evaluators/get-evaluator.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("getEvaluator", async (c) => {
  const { promptId, evaluatorId } = c.req.valid("param");
  return c.json(await getEvaluator(c.var.ctx, promptId, evaluatorId), 200);
});
