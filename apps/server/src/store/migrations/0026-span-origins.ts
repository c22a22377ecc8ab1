import { type Migration, sql } from "kysely";
import type { Dialect } from "../dialect.ts";
import { nameIndexes } from "../span-partitions.ts";
import type { AnyDb } from "./any-db.ts";

/**
 * Span origins (ADR 0013): what OpenTelemetry says about where a span was made — its resource, instrumentation
 * scope and kind — is the same for most spans of an application, so an OTLP span's `otel.resource.*`,
 * `otel.scope.*` and `otel.span.kind` attributes are indexed once per distinct set (an origin, keyed by a hash of
 * the set) instead of once per span; the span names its origin, and the span still holds them in `attributes`.
 * Nothing is backfilled: spans stored before keep per-span rows for those keys, which search reads as well.
 */
export const spanOrigins: (dialect: Dialect) => Migration = (dialect) => ({
  async up(db: AnyDb) {
    await db.schema.alterTable("logSpans").addColumn("originId", "text").execute();
    await db.schema
      .createIndex("logSpansByOrigin")
      .on("logSpans")
      .columns(["projectId", "originId", "startedAt", "id"])
      .where(sql.ref("originId"), "is not", null)
      .execute();
    if (dialect === "postgres") {
      // Each day partition's new index named after the table's, as every other (migration 0025).
      const { rows } = await sql<{ partition: string }>`
        select child.relname as partition from pg_inherits
        join pg_class child on child.oid = pg_inherits.inhrelid
        where pg_inherits.inhparent = '"logSpans"'::regclass`.execute(db);
      for (const { partition } of rows) await nameIndexes(db, "logSpans", partition);
    }
    await db.schema
      .createTable("logOriginAttributes")
      .addColumn("projectId", "text", (c) => c.notNull())
      .addColumn("originId", "text", (c) => c.notNull())
      .addColumn("key", "text", (c) => c.notNull())
      .addColumn("textValue", "text")
      .addColumn("numberValue", dialect === "postgres" ? "double precision" : "real")
      .addColumn("booleanValue", "integer")
      // A filter reads one key's origins of a project (few: an application has a handful of origins).
      .addPrimaryKeyConstraint("logOriginAttributesKey", ["projectId", "key", "originId"])
      .execute();
  },
});
