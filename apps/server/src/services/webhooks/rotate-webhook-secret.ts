import { inTransaction, type ServiceContext } from "../context.ts";
import type { PathOf } from "../operation-input.ts";
import { newSecret, ROTATION_OVERLAP_MS, requireWebhook, toWebhook, type WebhookWithSecret } from "./webhook.ts";

/**
 * A new secret signs from now on; the one it replaces signs beside it for ROTATION_OVERLAP_MS. A secret older
 * than that (a second rotation within the window) stops signing at once.
 */
export function rotateWebhookSecret(
  ctx: ServiceContext,
  { projectId, webhookId }: PathOf<"rotateWebhookSecret">,
): Promise<WebhookWithSecret> {
  return inTransaction(ctx, async (tx) => {
    // Locked before it is read: of two rotations at once, the second replaces the first one's secret.
    await tx.store.sql.locks
      .forUpdate(tx.db.selectFrom("webhooks").select("id").where("id", "=", webhookId))
      .executeTakeFirst();
    const webhook = await requireWebhook(tx, projectId, webhookId);
    const now = tx.now();
    const secret = newSecret();
    const changes = {
      secret: tx.secrets.seal(secret),
      previousSecret: webhook.secret,
      previousSecretExpiresAt: now + ROTATION_OVERLAP_MS,
      updatedAt: now,
    };
    await tx.db.updateTable("webhooks").set(changes).where("id", "=", webhook.id).execute();
    return { ...toWebhook({ ...webhook, ...changes }, now), secret };
  });
}
