import { inTransaction, type ServiceContext } from "../context.ts";
import type { BodyOf, PathOf, Unread } from "../operation-input.ts";
import {
  checkHeaders,
  checkUrl,
  eventsToStore,
  headersToStore,
  requireWebhook,
  toWebhook,
  type Webhook,
} from "./webhook.ts";

/** PATCH: the fields given replace the stored ones (`headers` as a whole); the secret never changes here. */
export function updateWebhook(
  ctx: ServiceContext,
  { projectId, webhookId }: PathOf<"updateWebhook">,
  body: BodyOf<"updateWebhook">,
): Promise<Webhook> {
  const { name, url, events, headers, ...unread } = body;
  unread satisfies Unread;
  if (url !== undefined) checkUrl(ctx, url);
  checkHeaders(headers);
  return inTransaction(ctx, async (tx) => {
    const webhook = await requireWebhook(tx, projectId, webhookId);
    const now = tx.now();
    const changes = {
      ...(name !== undefined && { name }),
      ...(url !== undefined && { url }),
      ...(events !== undefined && { events: eventsToStore(events) }),
      ...(headers !== undefined && { headers: headersToStore(headers) }),
      updatedAt: now,
    };
    await tx.db.updateTable("webhooks").set(changes).where("id", "=", webhook.id).execute();
    return toWebhook({ ...webhook, ...changes }, now);
  });
}
