import type { Kysely, Migration } from "kysely";
import {
  addToSpanRollups,
  addToTraceRollups,
  spanRollupRows,
  traceRollupRows,
} from "../../services/metrics/rollups.ts";
import type { Dialect } from "../dialect.ts";
import type { Database } from "../schema.ts";
import type { AnyDb } from "./any-db.ts";
import { createHistogramAdd } from "./histogram-add.ts";

/** Rows read per page while the rollups of the logs already stored are built. */
const BACKFILL_PAGE = 5_000;

/**
 * The metrics rollups (ADR 0017): span sums and latency histograms per project, bucket (minute, hour, day) and
 * combination of span dimensions; trace counts per project, bucket and trace name. Kept by every log write in
 * its transaction (services/metrics/rollups.ts); built here from the logs already stored.
 *
 * `pharos_histogram_add(a, b)` adds two stored histograms (services/metrics/latency-histogram.ts); on SQLite it
 * is a function every connection registers (store/sqlite.ts), on PostgreSQL a SQL function created here
 * (histogram-add.ts, whose definition migration 0024 changed with the stored format).
 */
export const metricRollups: (dialect: Dialect) => Migration = (dialect) => ({
  async up(db: AnyDb) {
    const real = dialect === "postgres" ? "double precision" : "real";
    await db.schema
      .createTable("logSpanRollups")
      .addColumn("projectId", "text", (c) => c.notNull())
      .addColumn("bucketSize", "text", (c) => c.notNull())
      .addColumn("bucketStart", "bigint", (c) => c.notNull())
      .addColumn("model", "text", (c) => c.notNull())
      .addColumn("provider", "text", (c) => c.notNull())
      .addColumn("promptId", "text", (c) => c.notNull())
      .addColumn("deploymentId", "text", (c) => c.notNull())
      .addColumn("contentType", "text", (c) => c.notNull())
      .addColumn("spanCount", "bigint", (c) => c.notNull())
      .addColumn("failedSpans", "bigint", (c) => c.notNull())
      .addColumn("cost", real, (c) => c.notNull())
      .addColumn("inputTokens", "bigint", (c) => c.notNull())
      .addColumn("outputTokens", "bigint", (c) => c.notNull())
      .addColumn("latencyHistogram", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("logSpanRollupsKey", [
        "projectId",
        "bucketSize",
        "bucketStart",
        "model",
        "provider",
        "promptId",
        "deploymentId",
        "contentType",
      ])
      .execute();
    await db.schema
      .createTable("logTraceRollups")
      .addColumn("projectId", "text", (c) => c.notNull())
      .addColumn("bucketSize", "text", (c) => c.notNull())
      .addColumn("bucketStart", "bigint", (c) => c.notNull())
      .addColumn("traceName", "text", (c) => c.notNull())
      .addColumn("traceCount", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("logTraceRollupsKey", ["projectId", "bucketSize", "bucketStart", "traceName"])
      .execute();
    // Today's definition (histogram-add.ts): the backfill below writes the histograms of today's code.
    if (dialect === "postgres") await createHistogramAdd(db);
    await backfillRollups(db as Kysely<Database>);
  },
});

/** Rolls up the spans and traces stored before this migration, a page at a time (exported for its test). */
export async function backfillRollups(db: Kysely<Database>): Promise<void> {
  for (let after = ""; ; ) {
    const spans = await db
      .selectFrom("logSpans")
      .select([
        "id",
        "projectId",
        "startedAt",
        "status",
        "contentType",
        "latency",
        "model",
        "provider",
        "promptId",
        "deploymentId",
        "cost",
        "promptTokens",
        "completionTokens",
      ])
      .where("id", ">", after)
      .orderBy("id")
      .limit(BACKFILL_PAGE)
      .execute();
    if (spans.length === 0) break;
    await addToSpanRollups(db, spanRollupRows(spans), { dimensions: false });
    after = (spans[spans.length - 1] as { id: string }).id;
  }
  for (let after = ""; ; ) {
    const traces = await db
      .selectFrom("logTraces")
      .select(["id", "projectId", "name", "startedAt"])
      .where("id", ">", after)
      .orderBy("id")
      .limit(BACKFILL_PAGE)
      .execute();
    if (traces.length === 0) break;
    await addToTraceRollups(db, traceRollupRows(traces));
    after = (traces[traces.length - 1] as { id: string }).id;
  }
}
