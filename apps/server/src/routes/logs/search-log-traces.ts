import { searchLogTraces } from "../../services/logs/search-log-traces.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("searchLogTraces", async (c) => {
  const { items, pagination } = await searchLogTraces(c.var.ctx, c.req.valid("json"));
  return c.json({ traces: items, pagination }, 200);
});
