import type { Migration } from "kysely";
import type { AnyDb } from "./any-db.ts";

/**
 * The spans-of-a-trace index ends with the keyset (startedAt, id), so a trace's spans in order, first page or
 * after a cursor, are one range of it. With (traceId, startedAt) only, SQLite served a span search by
 * `logTraceId` in `startedAt` order from the project's time index instead (it gives the order, the trace
 * index did not give all of it): a walk over every older span of the project
 * (ADR 0026). Replacing the index keeps a span write at the same number of index entries.
 */
export const spanTraceIndex: Migration = {
  async up(db: AnyDb) {
    await db.schema.dropIndex("logSpansByTrace").execute();
    await db.schema.createIndex("logSpansByTrace").on("logSpans").columns(["traceId", "startedAt", "id"]).execute();
  },
};
