import { type Migration, sql } from "kysely";
import type { Dialect } from "../dialect.ts";
import type { AnyDb } from "./any-db.ts";
import { createHistogramAdd } from "./histogram-add.ts";

/**
 * Latency histograms stored as compact text (`low:count,,count`, services/metrics/latency-histogram.ts) instead
 * of a JSON object of bucket index → count: about a third of the text for the histograms a metrics query reads
 * by the thousand (ADR 0017). `pharos_histogram_add` reads both kinds and writes the compact one (on SQLite
 * the function every connection registers, on PostgreSQL the SQL function re-created here), so adding an
 * empty histogram converts a stored one.
 */
export const compactHistograms: (dialect: Dialect) => Migration = (dialect) => ({
  async up(db: AnyDb) {
    if (dialect === "postgres") await createHistogramAdd(db);
    for (const table of ["logSpanRollups", "logSpanDimensionRollups"]) {
      await sql`update ${sql.table(table)} set "latencyHistogram" = pharos_histogram_add("latencyHistogram", '')
        where "latencyHistogram" like '{%'`.execute(db);
    }
  },
});
