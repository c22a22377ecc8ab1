import { listProviders } from "../../services/providers/list-providers.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("listProviders", async (c) => {
  const { items, pagination } = await listProviders(c.var.ctx, c.req.valid("query"));
  return c.json({ providers: items, pagination }, 200);
});
