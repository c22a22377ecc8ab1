import { listWebhooks } from "../../services/webhooks/list-webhooks.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("listWebhooks", async (c) => {
  const { items, pagination } = await listWebhooks(c.var.ctx, c.req.valid("param"), c.req.valid("query"));
  return c.json({ webhooks: items, pagination }, 200);
});
