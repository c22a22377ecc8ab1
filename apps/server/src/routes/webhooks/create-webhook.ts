import { createWebhook } from "../../services/webhooks/create-webhook.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("createWebhook", async (c) =>
  c.json(await createWebhook(c.var.ctx, c.req.valid("param"), c.req.valid("json")), 201),
);
