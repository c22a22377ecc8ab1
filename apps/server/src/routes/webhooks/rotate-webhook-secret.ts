import { rotateWebhookSecret } from "../../services/webhooks/rotate-webhook-secret.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("rotateWebhookSecret", async (c) =>
  c.json(await rotateWebhookSecret(c.var.ctx, c.req.valid("param")), 200),
);
