import type { Migration } from "kysely";
import type { Dialect } from "../dialect.ts";
import type { AnyDb } from "./any-db.ts";

export const evaluations: (dialect: Dialect) => Migration = (dialect) => ({
  async up(db: AnyDb) {
    const real = dialect === "postgres" ? "double precision" : "real";
    await db.schema
      .createTable("providers")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("workspaceId", "text", (c) => c.notNull().references("workspaces.id"))
      .addColumn("provider", "text", (c) => c.notNull())
      .addColumn("displayName", "text", (c) => c.notNull())
      .addColumn("displayNameKey", "text", (c) => c.notNull())
      .addColumn("baseUrl", "text")
      .addColumn("credentials", "text")
      .addColumn("createdAt", "bigint", (c) => c.notNull())
      .addColumn("updatedAt", "bigint", (c) => c.notNull())
      .addUniqueConstraint("providersUniqueDisplayName", ["workspaceId", "displayNameKey"])
      .execute();
    await db.schema
      .createIndex("providersByWorkspace")
      .on("providers")
      .columns(["workspaceId", "createdAt", "id"])
      .execute();

    // Runs outlive their evaluator and dataset (no foreign keys to them) but not their prompt.
    await db.schema
      .createTable("evaluationRuns")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("workspaceId", "text", (c) => c.notNull())
      .addColumn("projectId", "text", (c) => c.notNull())
      .addColumn("promptId", "text", (c) => c.notNull().references("prompts.id").onDelete("cascade"))
      .addColumn("evaluatorId", "text", (c) => c.notNull())
      .addColumn("datasetId", "text", (c) => c.notNull())
      .addColumn("deploymentId", "text")
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("promptVersion", "text", (c) => c.notNull())
      .addColumn("evaluatorConfig", "text", (c) => c.notNull())
      .addColumn("columns", "text", (c) => c.notNull())
      .addColumn("totalRows", "integer", (c) => c.notNull())
      .addColumn("completedRows", "integer", (c) => c.notNull())
      .addColumn("failedRows", "integer", (c) => c.notNull())
      .addColumn("passRuns", "integer", (c) => c.notNull())
      .addColumn("failRuns", "integer", (c) => c.notNull())
      .addColumn("unknownRuns", "integer", (c) => c.notNull())
      .addColumn("totalCost", real, (c) => c.notNull())
      .addColumn("totalLatency", real, (c) => c.notNull())
      .addColumn("totalTokenCount", "bigint", (c) => c.notNull())
      .addColumn("error", "text")
      .addColumn("createdAt", "bigint", (c) => c.notNull())
      .addColumn("startedAt", "bigint")
      .addColumn("finishedAt", "bigint")
      .addColumn("updatedAt", "bigint", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("evaluationRunsByPrompt")
      .on("evaluationRuns")
      .columns(["promptId", "createdAt", "id"])
      .execute();
    await db.schema
      .createIndex("evaluationRunsByStatus")
      .on("evaluationRuns")
      .columns(["status", "createdAt"])
      .execute();
    await db.schema
      .createIndex("evaluationRunsByEvaluator")
      .on("evaluationRuns")
      .columns(["evaluatorId", "status"])
      .execute();
    await db.schema
      .createIndex("evaluationRunsByDataset")
      .on("evaluationRuns")
      .columns(["datasetId", "status"])
      .execute();

    await db.schema
      .createTable("evaluationRunItems")
      .addColumn("runId", "text", (c) => c.notNull().references("evaluationRuns.id").onDelete("cascade"))
      .addColumn("rowId", "text", (c) => c.notNull())
      .addColumn("position", "integer", (c) => c.notNull())
      .addColumn("values", "text", (c) => c.notNull())
      .addColumn("state", "text", (c) => c.notNull())
      .addColumn("leaseOwner", "text")
      .addColumn("leaseExpiresAt", "bigint")
      .addPrimaryKeyConstraint("evaluationRunItemsKey", ["runId", "rowId"])
      .execute();
    await db.schema
      .createIndex("evaluationRunItemsByState")
      .on("evaluationRunItems")
      .columns(["runId", "state", "position"])
      .execute();
    await db.schema.createIndex("evaluationRunItemsByLease").on("evaluationRunItems").columns(["leaseOwner"]).execute();

    await db.schema
      .createTable("evaluationResults")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("runId", "text", (c) => c.notNull().references("evaluationRuns.id").onDelete("cascade"))
      .addColumn("rowId", "text", (c) => c.notNull())
      .addColumn("grade", "text", (c) => c.notNull())
      .addColumn("score", real, (c) => c.notNull())
      .addColumn("reason", "text", (c) => c.notNull())
      .addColumn("output", "text")
      .addColumn("error", "text")
      .addColumn("cost", real, (c) => c.notNull())
      .addColumn("latency", real, (c) => c.notNull())
      .addColumn("tokenCount", "bigint", (c) => c.notNull())
      .addColumn("createdAt", "bigint", (c) => c.notNull())
      // Exactly one result per row of a run, however many workers touched it.
      .addUniqueConstraint("evaluationResultsUniqueRow", ["runId", "rowId"])
      .execute();
    await db.schema
      .createIndex("evaluationResultsByTime")
      .on("evaluationResults")
      .columns(["runId", "createdAt", "id"])
      .execute();
    await db.schema
      .createIndex("evaluationResultsByScore")
      .on("evaluationResults")
      .columns(["runId", "score", "createdAt", "id"])
      .execute();
    await db.schema
      .createIndex("evaluationResultsByGrade")
      .on("evaluationResults")
      .columns(["runId", "grade", "createdAt", "id"])
      .execute();
  },
});
