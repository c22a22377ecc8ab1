import { deleteWebhook } from "../../services/webhooks/delete-webhook.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("deleteWebhook", async (c) => {
  await deleteWebhook(c.var.ctx, c.req.valid("param"));
  return c.body(null, 204);
});
