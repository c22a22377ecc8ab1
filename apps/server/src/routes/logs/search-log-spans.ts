import { searchLogSpans } from "../../services/logs/search-log-spans.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("searchLogSpans", async (c) => {
  const { items, pagination } = await searchLogSpans(c.var.ctx, c.req.valid("json"));
  return c.json({ spans: items, pagination }, 200);
});
