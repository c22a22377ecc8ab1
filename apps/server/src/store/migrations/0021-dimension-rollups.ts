import { type Kysely, type Migration, sql } from "kysely";
import { addToDimensionRollups, dimensionRollupRows, SPAN_ROLLUP_KEY } from "../../services/metrics/rollups.ts";
import type { Dialect } from "../dialect.ts";
import type { Database } from "../schema.ts";
import type { AnyDb } from "./any-db.ts";
import { createHistogramAdd } from "./histogram-add.ts";

/** Combination rollup rows read per page while the per-dimension rollups are built. */
const BACKFILL_PAGE = 5_000;

/**
 * The per-dimension span rollups (ADR 0017): per project, hour or day bucket and one span dimension with its
 * value (or all spans), so that a metrics query grouped and filtered by at most one dimension reads a row per
 * point instead of every combination of dimensions. Kept by every log write beside the combination rollups
 * (services/metrics/rollups.ts); built here from the combination rollups, which are exact.
 */
export const dimensionRollups: (dialect: Dialect) => Migration = (dialect) => ({
  async up(db: AnyDb) {
    await db.schema
      .createTable("logSpanDimensionRollups")
      .addColumn("projectId", "text", (c) => c.notNull())
      .addColumn("bucketSize", "text", (c) => c.notNull())
      .addColumn("bucketStart", "bigint", (c) => c.notNull())
      .addColumn("dimension", "text", (c) => c.notNull())
      .addColumn("value", "text", (c) => c.notNull())
      .addColumn("spanCount", "bigint", (c) => c.notNull())
      .addColumn("failedSpans", "bigint", (c) => c.notNull())
      .addColumn("cost", dialect === "postgres" ? "double precision" : "real", (c) => c.notNull())
      .addColumn("inputTokens", "bigint", (c) => c.notNull())
      .addColumn("outputTokens", "bigint", (c) => c.notNull())
      .addColumn("latencyHistogram", "text", (c) => c.notNull())
      // The key leads with what every query fixes (project, bucket size, dimension), then the bucket range:
      // a query's rows are one contiguous index range, in the order of its points.
      .addPrimaryKeyConstraint("logSpanDimensionRollupsKey", [
        "projectId",
        "bucketSize",
        "dimension",
        "bucketStart",
        "value",
      ])
      .execute();
    // The backfill adds the compact histograms of today's code: the function must read them (histogram-add.ts).
    if (dialect === "postgres") await createHistogramAdd(db);
    await backfillDimensionRollups(db as Kysely<Database>);
  },
});

/** Sums the hour and day combination rollups per dimension, a page at a time (exported for its test). */
export async function backfillDimensionRollups(db: Kysely<Database>): Promise<void> {
  const key = SPAN_ROLLUP_KEY.map((column) => sql.ref(column));
  for (let after: unknown[] | undefined; ; ) {
    const rows = await db
      .selectFrom("logSpanRollups")
      .selectAll()
      .where("bucketSize", "in", ["hour", "day"])
      .$if(after !== undefined, (query) =>
        query.where(sql<boolean>`(${sql.join(key)}) > (${sql.join(after as unknown[])})`),
      )
      .$call((query) => SPAN_ROLLUP_KEY.reduce((ordered, column) => ordered.orderBy(column), query))
      .limit(BACKFILL_PAGE)
      .execute();
    if (rows.length === 0) break;
    // A page may end inside a bucket: the next page's rows of that bucket are added to it (upserts add).
    await addToDimensionRollups(db, dimensionRollupRows(rows));
    const last = rows[rows.length - 1] as Record<string, unknown>;
    after = SPAN_ROLLUP_KEY.map((column) => last[column]);
  }
}
