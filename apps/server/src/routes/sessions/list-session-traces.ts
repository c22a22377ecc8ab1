import { listSessionTraces } from "../../services/sessions/list-session-traces.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("listSessionTraces", async (c) => {
  const { items, pagination } = await listSessionTraces(c.var.ctx, c.req.valid("param"), c.req.valid("query"));
  return c.json({ traces: items, pagination }, 200);
});
