import type { Migration } from "kysely";
import type { Dialect } from "../dialect.ts";
import type { AnyDb } from "./any-db.ts";

/**
 * Scores (ADR 0015): graded judgements on a trace or one of its spans, from an application (`api`) or an
 * evaluator (`evaluator`), and the per-project score configs that type a score name.
 *
 * A value is stored in two columns: `numberValue` holds a number as is and a boolean as 1 or 0, so one numeric
 * column serves value-range filters, score filters of log searches and averages over both kinds; `stringValue`
 * holds a category (`numberValue` is then null). `dataType` says which of the three the caller sent.
 */
export const scores: (dialect: Dialect) => Migration = (dialect) => ({
  async up(db: AnyDb) {
    const real = dialect === "postgres" ? "double precision" : "real";
    await db.schema
      .createTable("scores")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("workspaceId", "text", (c) => c.notNull())
      .addColumn("projectId", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
      .addColumn("traceId", "text", (c) => c.notNull().references("logTraces.id").onDelete("cascade"))
      .addColumn("spanId", "text", (c) => c.references("logSpans.id").onDelete("cascade"))
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("dataType", "text", (c) => c.notNull())
      .addColumn("numberValue", real)
      .addColumn("stringValue", "text")
      .addColumn("comment", "text")
      .addColumn("source", "text", (c) => c.notNull())
      .addColumn("evaluatorId", "text")
      .addColumn("runId", "text")
      .addColumn("authorKeyId", "text")
      .addColumn("createdAt", "bigint", (c) => c.notNull())
      .addColumn("updatedAt", "bigint", (c) => c.notNull())
      .execute();
    // Keyset pages on (createdAt, id): a project's scores, alone or narrowed by name; a trace's and a span's.
    await db.schema.createIndex("scoresByTime").on("scores").columns(["projectId", "createdAt", "id"]).execute();
    await db.schema
      .createIndex("scoresByName")
      .on("scores")
      .columns(["projectId", "name", "createdAt", "id"])
      .execute();
    await db.schema.createIndex("scoresByTrace").on("scores").columns(["traceId", "createdAt", "id"]).execute();
    await db.schema.createIndex("scoresBySpan").on("scores").columns(["spanId", "createdAt", "id"]).execute();
    // Score filters of the log searches and value ranges: the traces and spans whose score of a name is in range.
    await db.schema
      .createIndex("scoresByNameValue")
      .on("scores")
      .columns(["projectId", "name", "numberValue"])
      .execute();
    // Online evaluation's counts per evaluator.
    await db.schema.createIndex("scoresByEvaluator").on("scores").columns(["evaluatorId", "createdAt"]).execute();

    await db.schema
      .createTable("scoreConfigs")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("workspaceId", "text", (c) => c.notNull())
      .addColumn("projectId", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("dataType", "text", (c) => c.notNull())
      .addColumn("minValue", real)
      .addColumn("maxValue", real)
      .addColumn("categories", "text")
      .addColumn("description", "text", (c) => c.notNull())
      .addColumn("createdAt", "bigint", (c) => c.notNull())
      .addColumn("updatedAt", "bigint", (c) => c.notNull())
      // One config per score name of a project: it is what validates that name's values.
      .addUniqueConstraint("scoreConfigsUniqueName", ["projectId", "name"])
      .execute();
    await db.schema
      .createIndex("scoreConfigsByProject")
      .on("scoreConfigs")
      .columns(["projectId", "createdAt", "id"])
      .execute();
  },
});
