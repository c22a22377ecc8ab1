/**
 * The outbox (ADR 0011): an event is written, with one delivery per endpoint of the project that subscribes
 * to it, in the caller's transaction, the one that makes the event happen. What commits gets delivered, even
 * if the process dies right after the commit; what rolls back never is.
 */
import type { Kysely } from "kysely";
import type { IdGenerator } from "../../ids.ts";
import type { Database, WebhookDeliveryType } from "../../store/schema.ts";
import { fromJson, toJson } from "../json.ts";

/** Failed attempts are retried until this long after the event. */
export const RETRY_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface OutboxEvent {
  workspaceId: string;
  projectId: string;
  type: WebhookDeliveryType;
  payload: Record<string, unknown>;
}

/** The body every delivery of an event sends, byte for byte. */
export const eventBody = (type: WebhookDeliveryType, eventId: string, createdAt: number, payload: unknown) =>
  toJson({ type, eventId, createdAt, payload });

/**
 * Writes the event and its deliveries (due at once) with `db`, which should be the transaction of the change
 * the event reports. Returns how many deliveries it queued: none (and no event row) when no endpoint of the
 * project subscribes to the type.
 */
export async function enqueueWebhookEvent(
  db: Kysely<Database>,
  clock: { now: number; newId: IdGenerator },
  event: OutboxEvent,
): Promise<number> {
  const endpoints = await db
    .selectFrom("webhooks")
    .select(["id", "events"])
    .where("projectId", "=", event.projectId)
    .execute();
  const subscribed = endpoints.filter((endpoint) => fromJson<string[]>(endpoint.events).includes(event.type));
  if (subscribed.length === 0) return 0;
  const { now } = clock;
  const eventId = clock.newId("webhookEvent");
  await db
    .insertInto("webhookEvents")
    .values({
      id: eventId,
      workspaceId: event.workspaceId,
      projectId: event.projectId,
      type: event.type,
      body: eventBody(event.type, eventId, now, event.payload),
      createdAt: now,
    })
    .execute();
  await db
    .insertInto("webhookDeliveries")
    .values(
      subscribed.map((endpoint) => ({
        id: clock.newId("webhookDelivery"),
        webhookId: endpoint.id,
        eventId,
        type: event.type,
        status: "pending" as const,
        attempts: "[]",
        nextAttemptAt: now,
        retryUntil: now + RETRY_WINDOW_MS,
        createdAt: now,
        updatedAt: now,
      })),
    )
    .execute();
  return subscribed.length;
}

/**
 * `evaluation-run-finished` for run `runId` if it is now `completed` or `failed`, in the caller's transaction
 * (the one that finished it). A cancelled run sends nothing: whoever cancelled it knows.
 */
export async function enqueueRunFinished(
  db: Kysely<Database>,
  clock: { now: number; newId: IdGenerator },
  runId: string,
): Promise<void> {
  const run = await db
    .selectFrom("evaluationRuns")
    .select(["id", "workspaceId", "projectId", "promptId", "evaluatorId", "datasetId", "status"])
    .where("id", "=", runId)
    .executeTakeFirst();
  if (!run || (run.status !== "completed" && run.status !== "failed")) return;
  await enqueueWebhookEvent(db, clock, {
    workspaceId: run.workspaceId,
    projectId: run.projectId,
    type: "evaluation-run-finished",
    payload: {
      evaluationId: run.id,
      promptId: run.promptId,
      projectId: run.projectId,
      evaluatorId: run.evaluatorId,
      datasetId: run.datasetId,
      status: run.status,
    },
  });
}
