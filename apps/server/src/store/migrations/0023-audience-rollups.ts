import type { Kysely, Migration } from "kysely";
import { fromJson } from "../../services/json.ts";
import {
  addToDimensionRollups,
  addToTraceDimensionRollups,
  audienceRollupRows,
  inKeyOrder,
  traceDimensionRollupRows,
} from "../../services/metrics/rollups.ts";
import type { Dialect } from "../dialect.ts";
import type { Database } from "../schema.ts";
import type { AnyDb } from "./any-db.ts";
import { createHistogramAdd } from "./histogram-add.ts";

/** Spans (and traces) read per page while the trace-side rollups are built. */
const BACKFILL_PAGE = 5_000;

/**
 * The trace-side metrics dimensions (ADR 0017): `userId`, `sessionId` and `tag` rows in the per-dimension span
 * rollups (a span under its trace's user and session and each tag of its own and its trace's), and trace counts
 * per the same dimensions in a table of their own. Kept by every log write (services/metrics/rollups.ts); built
 * here from the stored spans and traces, which are exact.
 *
 * A write that moves spans out of a user, session or tag adds histograms with negative counts, which
 * `pharos_histogram_add` adds like any (a bucket whose count drops to zero is left out of the sum).
 */
export const audienceRollups: (dialect: Dialect) => Migration = (dialect) => ({
  async up(db: AnyDb) {
    await db.schema
      .createTable("logTraceDimensionRollups")
      .addColumn("projectId", "text", (c) => c.notNull())
      .addColumn("bucketSize", "text", (c) => c.notNull())
      .addColumn("bucketStart", "bigint", (c) => c.notNull())
      .addColumn("dimension", "text", (c) => c.notNull())
      .addColumn("value", "text", (c) => c.notNull())
      .addColumn("traceCount", "bigint", (c) => c.notNull())
      // As logSpanDimensionRollups: a query's rows are one contiguous index range, in the order of its points.
      .addPrimaryKeyConstraint("logTraceDimensionRollupsKey", [
        "projectId",
        "bucketSize",
        "dimension",
        "bucketStart",
        "value",
      ])
      .execute();
    // Today's definition (histogram-add.ts): the backfill below writes the histograms of today's code.
    if (dialect === "postgres") await createHistogramAdd(db);
    await backfillAudienceRollups(db as Kysely<Database>);
  },
});

/**
 * Rolls up the stored spans under their traces' users, sessions and tags, and the stored traces, a page at a time
 * by id (exported for its test). A page's deltas are summed per key (`audienceRollupRows`) before they are added.
 */
export async function backfillAudienceRollups(db: Kysely<Database>): Promise<void> {
  for (let after = ""; ; ) {
    const spans = await db
      .selectFrom("logSpans")
      .innerJoin("logTraces", "logTraces.id", "logSpans.traceId")
      .select([
        "logSpans.id",
        "logSpans.projectId",
        "logSpans.startedAt",
        "logSpans.status",
        "logSpans.contentType",
        "logSpans.latency",
        "logSpans.model",
        "logSpans.provider",
        "logSpans.promptId",
        "logSpans.deploymentId",
        "logSpans.cost",
        "logSpans.promptTokens",
        "logSpans.completionTokens",
        "logSpans.tags",
        "logTraces.userId",
        "logTraces.sessionId",
        "logTraces.tags as traceTags",
      ])
      .where("logSpans.id", ">", after)
      .orderBy("logSpans.id")
      .limit(BACKFILL_PAGE)
      .execute();
    if (spans.length === 0) break;
    const rows = inKeyOrder(
      audienceRollupRows(
        spans.map((span) => ({
          spans: [{ ...span, startedAt: Number(span.startedAt), tags: fromJson<string[]>(span.tags) }],
          audience: { userId: span.userId, sessionId: span.sessionId, tags: fromJson<string[]>(span.traceTags) },
        })),
      ),
    );
    await addToDimensionRollups(db, rows);
    after = (spans[spans.length - 1] as { id: string }).id;
  }
  for (let after = ""; ; ) {
    const traces = await db
      .selectFrom("logTraces")
      .select(["id", "projectId", "startedAt", "userId", "sessionId", "tags"])
      .where("id", ">", after)
      .orderBy("id")
      .limit(BACKFILL_PAGE)
      .execute();
    if (traces.length === 0) break;
    await addToTraceDimensionRollups(
      db,
      traceDimensionRollupRows(
        traces.map((trace) => ({ ...trace, startedAt: Number(trace.startedAt), tags: fromJson<string[]>(trace.tags) })),
      ),
    );
    after = (traces[traces.length - 1] as { id: string }).id;
  }
}
