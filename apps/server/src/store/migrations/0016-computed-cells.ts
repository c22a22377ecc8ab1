import type { Migration } from "kysely";
import type { Dialect } from "../dialect.ts";
import type { AnyDb } from "./any-db.ts";

/**
 * The state of each computed cell of a dataset (a `prompt` or `api` column's cell of a row): queued by
 * fetchDynamicColumns, claimed by workers with a lease as evaluation rows are, and settled with the value
 * written into the row (ADR 0020). Cells go with their row, column or dataset.
 */
export const computedCells: (dialect: Dialect) => Migration = (dialect) => ({
  async up(db: AnyDb) {
    const real = dialect === "postgres" ? "double precision" : "real";
    await db.schema
      .createTable("datasetComputedCells")
      .addColumn("rowId", "text", (c) => c.notNull().references("datasetRows.id").onDelete("cascade"))
      .addColumn("columnId", "text", (c) => c.notNull().references("datasetColumns.id").onDelete("cascade"))
      .addColumn("datasetId", "text", (c) => c.notNull().references("datasets.id").onDelete("cascade"))
      .addColumn("workspaceId", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("stage", "integer", (c) => c.notNull())
      .addColumn("reason", "text")
      .addColumn("latency", real)
      .addColumn("cost", real)
      .addColumn("leaseOwner", "text")
      .addColumn("leaseExpiresAt", "bigint")
      .addColumn("queuedAt", "bigint", (c) => c.notNull())
      .addColumn("updatedAt", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("datasetComputedCellsKey", ["rowId", "columnId"])
      .execute();
    await db.schema
      .createIndex("datasetComputedCellsDue")
      .on("datasetComputedCells")
      // In the claim's order, so that a claim reads the first due cells instead of sorting every pending one.
      .columns(["status", "queuedAt", "rowId", "columnId"])
      .execute();
    await db.schema
      .createIndex("datasetComputedCellsByDataset")
      .on("datasetComputedCells")
      .columns(["datasetId", "status"])
      .execute();
    // A claim asks, per candidate, whether its row has a pending cell of a lower stage: without this index the
    // planner may walk every pending cell for each candidate.
    await db.schema
      .createIndex("datasetComputedCellsByRow")
      .on("datasetComputedCells")
      .columns(["rowId", "status", "stage"])
      .execute();
    await db.schema
      .createIndex("datasetComputedCellsByColumn")
      .on("datasetComputedCells")
      .columns(["columnId"])
      .execute();
  },
});
