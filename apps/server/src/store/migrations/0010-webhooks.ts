import type { Migration } from "kysely";
import type { AnyDb } from "./any-db.ts";

/**
 * Webhook endpoints of a project, and the outbox their deliveries come from (ADR 0011): an event row and one
 * delivery row per subscribed endpoint are inserted in the transaction that makes the event happen (a
 * deployment, an evaluation run finishing), so a commit that happened always gets delivered. Deliverers claim
 * due deliveries by `nextAttemptAt` (a claim pushes it past the attempt's timeout, so it doubles as a lease).
 */
export const webhooks: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable("webhooks")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("workspaceId", "text", (c) => c.notNull())
      .addColumn("projectId", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("url", "text", (c) => c.notNull())
      .addColumn("events", "text", (c) => c.notNull())
      .addColumn("headers", "text", (c) => c.notNull())
      .addColumn("secret", "text", (c) => c.notNull())
      .addColumn("previousSecret", "text")
      .addColumn("previousSecretExpiresAt", "bigint")
      .addColumn("createdAt", "bigint", (c) => c.notNull())
      .addColumn("updatedAt", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("webhooksByProject").on("webhooks").columns(["projectId", "createdAt", "id"]).execute();

    await db.schema
      .createTable("webhookEvents")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("workspaceId", "text", (c) => c.notNull())
      .addColumn("projectId", "text", (c) => c.notNull())
      .addColumn("type", "text", (c) => c.notNull())
      .addColumn("body", "text", (c) => c.notNull())
      .addColumn("createdAt", "bigint", (c) => c.notNull())
      .execute();

    await db.schema
      .createTable("webhookDeliveries")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("webhookId", "text", (c) => c.notNull().references("webhooks.id").onDelete("cascade"))
      .addColumn("eventId", "text", (c) => c.notNull().references("webhookEvents.id").onDelete("cascade"))
      .addColumn("type", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("attempts", "text", (c) => c.notNull())
      .addColumn("nextAttemptAt", "bigint")
      .addColumn("retryUntil", "bigint", (c) => c.notNull())
      .addColumn("createdAt", "bigint", (c) => c.notNull())
      .addColumn("updatedAt", "bigint", (c) => c.notNull())
      .addUniqueConstraint("webhookDeliveriesUniqueEvent", ["webhookId", "eventId"])
      .execute();
    await db.schema
      .createIndex("webhookDeliveriesByWebhook")
      .on("webhookDeliveries")
      .columns(["webhookId", "createdAt", "id"])
      .execute();
    await db.schema
      .createIndex("webhookDeliveriesDue")
      .on("webhookDeliveries")
      .columns(["status", "nextAttemptAt"])
      .execute();
    await db.schema.createIndex("webhookDeliveriesByEvent").on("webhookDeliveries").columns(["eventId"]).execute();
  },
};
