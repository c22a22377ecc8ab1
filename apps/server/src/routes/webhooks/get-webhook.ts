import { getWebhook } from "../../services/webhooks/get-webhook.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("getWebhook", async (c) => c.json(await getWebhook(c.var.ctx, c.req.valid("param")), 200));
