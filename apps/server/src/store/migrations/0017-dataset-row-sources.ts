import type { Migration } from "kysely";
import type { AnyDb } from "./any-db.ts";

/**
 * The span a dataset row was made from (createDatasetRowsFromSpans), kept as a plain id: spans are log records
 * that may be deleted or exported away, and the row must outlive them.
 */
export const datasetRowSources: Migration = {
  async up(db: AnyDb) {
    await db.schema.alterTable("datasetRows").addColumn("sourceSpanId", "text").execute();
  },
};
