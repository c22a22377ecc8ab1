import { listWebhookDeliveries } from "../../services/webhooks/list-webhook-deliveries.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("listWebhookDeliveries", async (c) => {
  const { items, pagination } = await listWebhookDeliveries(c.var.ctx, c.req.valid("param"), c.req.valid("query"));
  return c.json({ deliveries: items, pagination }, 200);
});
