import { searchLogMetrics } from "../../services/metrics/search-log-metrics.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("searchLogMetrics", async (c) => {
  return c.json(await searchLogMetrics(c.var.ctx, c.req.valid("json")), 200);
});
