import { sendWebhookTestEvent } from "../../services/webhooks/send-webhook-test-event.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("sendWebhookTestEvent", async (c) =>
  c.json(await sendWebhookTestEvent(c.var.ctx, c.req.valid("param")), 200),
);
