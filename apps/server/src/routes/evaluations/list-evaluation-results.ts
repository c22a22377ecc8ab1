import { listEvaluationResults } from "../../services/evaluations/list-evaluation-results.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("listEvaluationResults", async (c) => {
  const { items, pagination } = await listEvaluationResults(c.var.ctx, c.req.valid("param"), c.req.valid("query"));
  return c.json({ results: items, pagination }, 200);
});
