import { listUsers } from "../../services/sessions/list-users.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("listUsers", async (c) => {
  const { items, pagination } = await listUsers(c.var.ctx, c.req.valid("param"), c.req.valid("query"));
  return c.json({ users: items, pagination }, 200);
});
