import { updateWebhook } from "../../services/webhooks/update-webhook.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("updateWebhook", async (c) =>
  c.json(await updateWebhook(c.var.ctx, c.req.valid("param"), c.req.valid("json")), 200),
);
