import { performance } from "node:perf_hooks";
import { inTransaction, type ServiceContext } from "../context.ts";
import { fromJson } from "../json.ts";
import type { PathOf } from "../operation-input.ts";
import {
  attemptDelivery,
  DEFAULT_BACKOFF,
  recordAttempt,
  signatureHeader,
  signingSecrets,
  toDelivery,
  type WebhookDelivery,
} from "./delivery.ts";
import { eventBody } from "./outbox.ts";
import { requireWebhook } from "./webhook.ts";

/**
 * Sends a `test` event to the endpoint now, once, and answers with the recorded delivery. The event and its
 * delivery are stored first (without a due time, so no deliverer takes it), then attempted here.
 */
export async function sendWebhookTestEvent(
  ctx: ServiceContext,
  { projectId, webhookId }: PathOf<"sendWebhookTestEvent">,
): Promise<WebhookDelivery> {
  const { webhook, event, deliveryId } = await inTransaction(ctx, async (tx) => {
    const webhook = await requireWebhook(tx, projectId, webhookId);
    const now = tx.now();
    const eventId = tx.newId("webhookEvent");
    const event = {
      id: eventId,
      workspaceId: webhook.workspaceId,
      projectId: webhook.projectId,
      type: "test" as const,
      body: eventBody("test", eventId, now, { webhookId: webhook.id, projectId: webhook.projectId }),
      createdAt: now,
    };
    await tx.db.insertInto("webhookEvents").values(event).execute();
    const deliveryId = tx.newId("webhookDelivery");
    await tx.db
      .insertInto("webhookDeliveries")
      .values({
        id: deliveryId,
        webhookId: webhook.id,
        eventId,
        type: "test",
        status: "pending",
        attempts: "[]",
        nextAttemptAt: null,
        retryUntil: now,
        createdAt: now,
        updatedAt: now,
      })
      .execute();
    return { webhook, event, deliveryId };
  });
  const attemptedAt = ctx.now();
  const started = performance.now();
  const outcome = await attemptDelivery(
    {
      url: webhook.url,
      headers: fromJson<Record<string, string>>(webhook.headers),
      eventId: event.id,
      body: event.body,
      signature: signatureHeader(event.body, signingSecrets(ctx.secrets, webhook, attemptedAt), attemptedAt),
    },
    ctx.webhooks,
  );
  const durationMs = Math.round(performance.now() - started);
  const recorded = await recordAttempt(
    ctx.store,
    ctx.db,
    deliveryId,
    { attemptedAt, durationMs, ...outcome },
    { retry: false, backoff: DEFAULT_BACKOFF, now: ctx.now() },
  );
  // Only a delete of the endpoint in the meantime removes it: answer with what was attempted.
  return recorded
    ? toDelivery(recorded)
    : {
        id: deliveryId,
        webhookId: webhook.id,
        eventId: event.id,
        type: "test",
        status: outcome.error === null ? "succeeded" : "failed",
        attempts: [{ attemptedAt, durationMs, ...outcome }],
        nextAttemptAt: null,
        createdAt: event.createdAt,
        updatedAt: attemptedAt,
      };
}
