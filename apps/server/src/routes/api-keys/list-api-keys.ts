import { listApiKeys } from "../../services/api-keys/list-api-keys.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("listApiKeys", async (c) => {
  const { items, pagination } = await listApiKeys(c.var.ctx, c.req.valid("query"));
  return c.json({ apiKeys: items, pagination }, 200);
});
