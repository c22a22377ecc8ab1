import { inTransaction, type ServiceContext } from "../context.ts";
import type { PathOf } from "../operation-input.ts";
import { requireWebhook } from "./webhook.ts";

/** Deletes the endpoint with its delivery log; its pending deliveries are never attempted. */
export function deleteWebhook(ctx: ServiceContext, { projectId, webhookId }: PathOf<"deleteWebhook">): Promise<void> {
  return inTransaction(ctx, async (tx) => {
    const webhook = await requireWebhook(tx, projectId, webhookId);
    await tx.db.deleteFrom("webhookDeliveries").where("webhookId", "=", webhook.id).execute();
    await tx.db.deleteFrom("webhooks").where("id", "=", webhook.id).execute();
  });
}
