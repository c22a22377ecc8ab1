import { getEvaluatorOnlineStats } from "../../services/evaluators/get-evaluator-online-stats.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("getEvaluatorOnlineStats", async (c) => {
  return c.json(await getEvaluatorOnlineStats(c.var.ctx, c.req.valid("param"), c.req.valid("query")), 200);
});
