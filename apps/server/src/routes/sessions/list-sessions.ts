import { listSessions } from "../../services/sessions/list-sessions.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("listSessions", async (c) => {
  const { items, pagination } = await listSessions(c.var.ctx, c.req.valid("param"), c.req.valid("query"));
  return c.json({ sessions: items, pagination }, 200);
});
