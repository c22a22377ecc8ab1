import type { Migration } from "kysely";
import type { Dialect } from "../dialect.ts";
import type { AnyDb } from "./any-db.ts";

export const logs: (dialect: Dialect) => Migration = (dialect) => ({
  async up(db: AnyDb) {
    const real = dialect === "postgres" ? "double precision" : "real";
    await db.schema
      .createTable("logTraces")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("workspaceId", "text", (c) => c.notNull())
      .addColumn("projectId", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("startedAt", "bigint", (c) => c.notNull())
      .addColumn("endedAt", "bigint", (c) => c.notNull())
      .addColumn("latency", "bigint", (c) => c.notNull())
      .addColumn("referenceId", "text")
      .addColumn("sessionId", "text")
      .addColumn("attributes", "text", (c) => c.notNull())
      .addColumn("tags", "text", (c) => c.notNull())
      .addColumn("spanIds", "text", (c) => c.notNull())
      .addColumn("totalCost", real, (c) => c.notNull())
      .addColumn("totalInputTokens", "bigint", (c) => c.notNull())
      .addColumn("totalOutputTokens", "bigint", (c) => c.notNull())
      .addColumn("createdAt", "bigint", (c) => c.notNull())
      .addColumn("updatedAt", "bigint", (c) => c.notNull())
      .execute();
    // Keyset pages on (startedAt, id) within a project, alone or narrowed by the common exact filters.
    await db.schema.createIndex("logTracesByTime").on("logTraces").columns(["projectId", "startedAt", "id"]).execute();
    await db.schema
      .createIndex("logTracesByStatus")
      .on("logTraces")
      .columns(["projectId", "status", "startedAt", "id"])
      .execute();
    await db.schema
      .createIndex("logTracesBySession")
      .on("logTraces")
      .columns(["projectId", "sessionId", "startedAt", "id"])
      .execute();
    // A trace referenceId is unique in its project (a duplicate create is 409); NULLs do not collide.
    await db.schema
      .createIndex("logTracesUniqueReference")
      .on("logTraces")
      .columns(["projectId", "referenceId"])
      .unique()
      .execute();

    await db.schema
      .createTable("logSpans")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("workspaceId", "text", (c) => c.notNull())
      .addColumn("projectId", "text", (c) => c.notNull())
      .addColumn("traceId", "text", (c) => c.notNull().references("logTraces.id").onDelete("cascade"))
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("contentType", "text", (c) => c.notNull())
      .addColumn("startedAt", "bigint", (c) => c.notNull())
      .addColumn("endedAt", "bigint", (c) => c.notNull())
      .addColumn("latency", "bigint", (c) => c.notNull())
      .addColumn("promptId", "text")
      .addColumn("deploymentId", "text")
      .addColumn("referenceId", "text")
      .addColumn("parentReferenceId", "text")
      .addColumn("sessionId", "text")
      .addColumn("runEvaluation", "integer", (c) => c.notNull())
      .addColumn("model", "text")
      .addColumn("provider", "text")
      .addColumn("cost", real)
      .addColumn("promptTokens", "bigint")
      .addColumn("completionTokens", "bigint")
      .addColumn("totalTokens", "bigint")
      .addColumn("content", "text", (c) => c.notNull())
      .addColumn("attributes", "text", (c) => c.notNull())
      .addColumn("tags", "text", (c) => c.notNull())
      .addColumn("events", "text", (c) => c.notNull())
      .addColumn("createdAt", "bigint", (c) => c.notNull())
      .addColumn("updatedAt", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("logSpansByTime").on("logSpans").columns(["projectId", "startedAt", "id"]).execute();
    await db.schema
      .createIndex("logSpansByPrompt")
      .on("logSpans")
      .columns(["projectId", "promptId", "startedAt", "id"])
      .execute();
    await db.schema
      .createIndex("logSpansByStatus")
      .on("logSpans")
      .columns(["projectId", "status", "startedAt", "id"])
      .execute();
    await db.schema
      .createIndex("logSpansBySession")
      .on("logSpans")
      .columns(["projectId", "sessionId", "startedAt", "id"])
      .execute();
    // Search by a span's referenceId within a project (the unique key below is per trace).
    await db.schema
      .createIndex("logSpansByReference")
      .on("logSpans")
      .columns(["projectId", "referenceId", "startedAt", "id"])
      .execute();
    await db.schema.createIndex("logSpansByTrace").on("logSpans").columns(["traceId", "startedAt"]).execute();
    // A span referenceId is unique within its trace.
    await db.schema
      .createIndex("logSpansUniqueReference")
      .on("logSpans")
      .columns(["traceId", "referenceId"])
      .unique()
      .execute();

    await db.schema
      .createTable("logAttributes")
      .addColumn("projectId", "text", (c) => c.notNull())
      .addColumn("ownerKind", "text", (c) => c.notNull())
      .addColumn("ownerId", "text", (c) => c.notNull())
      .addColumn("key", "text", (c) => c.notNull())
      .addColumn("textValue", "text")
      .addColumn("numberValue", real)
      .addColumn("booleanValue", "integer")
      .addColumn("startedAt", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("logAttributesKey", ["ownerKind", "ownerId", "key"])
      .execute();
    await db.schema
      .createIndex("logAttributesByKey")
      .on("logAttributes")
      .columns(["projectId", "ownerKind", "key", "startedAt"])
      .execute();

    await db.schema
      .createTable("logTags")
      .addColumn("projectId", "text", (c) => c.notNull())
      .addColumn("ownerKind", "text", (c) => c.notNull())
      .addColumn("ownerId", "text", (c) => c.notNull())
      .addColumn("tag", "text", (c) => c.notNull())
      .addColumn("startedAt", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("logTagsKey", ["ownerKind", "ownerId", "tag"])
      .execute();
    await db.schema
      .createIndex("logTagsByTag")
      .on("logTags")
      .columns(["projectId", "ownerKind", "tag", "startedAt"])
      .execute();
  },
});
