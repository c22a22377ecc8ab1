/**
 * Schema migrations, applied at start. Written with Kysely's schema builder in types both dialects share
 * (text, bigint, integer), so one list serves SQLite and PostgreSQL; a dialect-specific step takes `dialect`.
 */
import { type Kysely, type Migration, sql } from "kysely";

export type Dialect = "sqlite" | "postgres";

// biome-ignore lint/suspicious/noExplicitAny: migrations run before (and independently of) the typed schema.
type AnyDb = Kysely<any>;

const core: (dialect: Dialect) => Migration = () => ({
  async up(db: AnyDb) {
    await db.schema
      .createTable("settings")
      .addColumn("key", "text", (c) => c.primaryKey())
      .addColumn("value", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("workspaces")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("createdAt", "bigint", (c) => c.notNull())
      .addColumn("updatedAt", "bigint", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("apiKeys")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("workspaceId", "text", (c) => c.notNull().references("workspaces.id"))
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("secretHash", "text", (c) => c.notNull())
      .addColumn("role", "text", (c) => c.notNull())
      .addColumn("projectIds", "text")
      .addColumn("createdAt", "bigint", (c) => c.notNull())
      .addColumn("revokedAt", "bigint")
      .execute();
    await db.schema.createIndex("apiKeysByWorkspace").on("apiKeys").columns(["workspaceId", "createdAt"]).execute();

    await db.schema
      .createTable("projects")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("workspaceId", "text", (c) => c.notNull().references("workspaces.id"))
      .addColumn("title", "text", (c) => c.notNull())
      .addColumn("icon", "text", (c) => c.notNull())
      .addColumn("createdAt", "bigint", (c) => c.notNull())
      .addColumn("updatedAt", "bigint", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("projectsByWorkspace")
      .on("projects")
      .columns(["workspaceId", "createdAt", "id"])
      .execute();

    await db.schema
      .createTable("deploymentEnvironments")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("workspaceId", "text", (c) => c.notNull())
      .addColumn("projectId", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("nameKey", "text", (c) => c.notNull())
      .addColumn("createdAt", "bigint", (c) => c.notNull())
      .addColumn("updatedAt", "bigint", (c) => c.notNull())
      .addUniqueConstraint("deploymentEnvironmentsUniqueName", ["projectId", "nameKey"])
      .execute();
    await db.schema
      .createIndex("deploymentEnvironmentsByProject")
      .on("deploymentEnvironments")
      .columns(["projectId", "createdAt", "id"])
      .execute();

    await db.schema
      .createTable("prompts")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("workspaceId", "text", (c) => c.notNull())
      .addColumn("projectId", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
      .addColumn("title", "text", (c) => c.notNull())
      .addColumn("icon", "text", (c) => c.notNull())
      .addColumn("draft", "text", (c) => c.notNull())
      .addColumn("playground", "text", (c) => c.notNull())
      .addColumn("createdAt", "bigint", (c) => c.notNull())
      .addColumn("updatedAt", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("promptsByProject").on("prompts").columns(["projectId", "createdAt", "id"]).execute();

    await db.schema
      .createTable("deployments")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("workspaceId", "text", (c) => c.notNull())
      .addColumn("projectId", "text", (c) => c.notNull())
      .addColumn("promptId", "text", (c) => c.notNull().references("prompts.id").onDelete("cascade"))
      .addColumn("deploymentEnvironmentId", "text", (c) =>
        c.notNull().references("deploymentEnvironments.id").onDelete("cascade"),
      )
      .addColumn("snapshot", "text", (c) => c.notNull())
      .addColumn("createdByKeyId", "text", (c) => c.notNull())
      .addColumn("createdAt", "bigint", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("deploymentsLatest")
      .on("deployments")
      .columns(["promptId", "deploymentEnvironmentId", "createdAt", "id"])
      .execute();
    await db.schema
      .createIndex("deploymentsByPrompt")
      .on("deployments")
      .columns(["promptId", "createdAt", "id"])
      .execute();

    await db.schema
      .createTable("datasets")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("workspaceId", "text", (c) => c.notNull())
      .addColumn("projectId", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
      .addColumn("title", "text", (c) => c.notNull())
      .addColumn("icon", "text", (c) => c.notNull())
      .addColumn("description", "text", (c) => c.notNull())
      .addColumn("rowCount", "integer", (c) => c.notNull())
      .addColumn("createdAt", "bigint", (c) => c.notNull())
      .addColumn("updatedAt", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("datasetsByProject").on("datasets").columns(["projectId", "createdAt", "id"]).execute();

    await db.schema
      .createTable("datasetColumns")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("datasetId", "text", (c) => c.notNull().references("datasets.id").onDelete("cascade"))
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("type", "text", (c) => c.notNull())
      .addColumn("settings", "text", (c) => c.notNull())
      .addColumn("position", "integer", (c) => c.notNull())
      .addColumn("createdAt", "bigint", (c) => c.notNull())
      .addColumn("updatedAt", "bigint", (c) => c.notNull())
      .addUniqueConstraint("datasetColumnsUniqueName", ["datasetId", "name"])
      .execute();

    await db.schema
      .createTable("datasetRows")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("datasetId", "text", (c) => c.notNull().references("datasets.id").onDelete("cascade"))
      .addColumn("values", "text", (c) => c.notNull())
      .addColumn("createdAt", "bigint", (c) => c.notNull())
      .addColumn("updatedAt", "bigint", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("datasetRowsByDataset")
      .on("datasetRows")
      .columns(["datasetId", "createdAt", "id"])
      .execute();

    await db.schema
      .createTable("evaluators")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("workspaceId", "text", (c) => c.notNull())
      .addColumn("projectId", "text", (c) => c.notNull())
      .addColumn("promptId", "text", (c) => c.notNull().references("prompts.id").onDelete("cascade"))
      .addColumn("datasetId", "text", (c) => c.notNull().references("datasets.id"))
      .addColumn("title", "text", (c) => c.notNull())
      .addColumn("config", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("createdAt", "bigint", (c) => c.notNull())
      .addColumn("updatedAt", "bigint", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("evaluatorsByPrompt")
      .on("evaluators")
      .columns(["promptId", "createdAt", "id"])
      .execute();
    await db.schema.createIndex("evaluatorsByDataset").on("evaluators").column("datasetId").execute();
  },
});

const logs: (dialect: Dialect) => Migration = (dialect) => ({
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

const evaluations: (dialect: Dialect) => Migration = (dialect) => ({
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

const logSearch: (dialect: Dialect) => Migration = (dialect) => ({
  async up(db: AnyDb) {
    // Lists the owners of one text attribute value in the keyset order (startedAt, id), so that a search
    // filtered on it walks only matching owners and stops at the page's end, whatever the value's share.
    await db.schema
      .createIndex("logAttributesByTextValue")
      .on("logAttributes")
      .columns(["projectId", "ownerKind", "key", "textValue", "startedAt", "ownerId"])
      .execute();
    if (dialect === "postgres") {
      // Without statistics of lower(name), PostgreSQL takes a name substring to match 0.5% of the rows, finds
      // a page's worth of rows too few to be worth walking an index in order, and sorts the whole time range
      // instead. ANALYZE fills these in (no index, so no cost to writes).
      for (const table of ["logTraces", "logSpans"]) {
        await sql`create statistics ${sql.id(`${table}LowerName`)} on (lower(name)) from ${sql.table(table)}`.execute(
          db,
        );
      }
    }
  },
});

/**
 * The indexes of optional log columns hold only the rows that have a value. Every search on such a column
 * compares it with a value, which implies `is not null`, so both databases still use them; a write of a row
 * without the value skips the index altogether (most spans have no prompt, session or reference: four of a
 * span's eight index entries).
 */
const partialLogIndexes: Migration = {
  async up(db: AnyDb) {
    const indexes: [name: string, table: string, columns: string[], unique: boolean][] = [
      ["logTracesBySession", "logTraces", ["projectId", "sessionId", "startedAt", "id"], false],
      ["logTracesUniqueReference", "logTraces", ["projectId", "referenceId"], true],
      ["logSpansByPrompt", "logSpans", ["projectId", "promptId", "startedAt", "id"], false],
      ["logSpansBySession", "logSpans", ["projectId", "sessionId", "startedAt", "id"], false],
      ["logSpansByReference", "logSpans", ["projectId", "referenceId", "startedAt", "id"], false],
      ["logSpansUniqueReference", "logSpans", ["traceId", "referenceId"], true],
      [
        "logAttributesByTextValue",
        "logAttributes",
        ["projectId", "ownerKind", "key", "textValue", "startedAt", "ownerId"],
        false,
      ],
    ];
    for (const [name, table, columns, unique] of indexes) {
      const optional = columns.find((column) => ["sessionId", "referenceId", "promptId", "textValue"].includes(column));
      await db.schema.dropIndex(name).execute();
      const index = db.schema.createIndex(name).on(table).columns(columns);
      await (unique ? index.unique() : index).where(sql.ref(optional as string), "is not", null).execute();
    }
  },
};

/**
 * The attribute and tag side rows are keyed by the order searches read them in: (projectId, ownerKind,
 * key | tag, startedAt, ownerId). That key is as unique as the owner's (ownerKind, ownerId, key | tag), since
 * an owner has one project and one startedAt, and it serves both the searches (a key's owners in a time
 * range) and the lookups of one owner's row (PATCH, NOT EXISTS), which know the owner's project and
 * startedAt. On SQLite the tables are WITHOUT ROWID, clustered on that key: a side row is one b-tree entry
 * (plus the text-value index for text attributes) instead of a table row and two or three index entries.
 */
const sideRowsBySearchKey: (dialect: Dialect) => Migration = (dialect) => ({
  async up(db: AnyDb) {
    const tables = [
      { table: "logAttributes", oldKey: "logAttributesKey", oldIndex: "logAttributesByKey", name: "key" },
      { table: "logTags", oldKey: "logTagsKey", oldIndex: "logTagsByTag", name: "tag" },
    ];
    for (const { table, oldKey, oldIndex, name } of tables) {
      const key = ["projectId", "ownerKind", name, "startedAt", "ownerId"];
      if (dialect === "postgres") {
        await db.schema.alterTable(table).dropConstraint(oldKey).execute();
        await db.schema.alterTable(table).addPrimaryKeyConstraint(`${table}Key`, key).execute();
        await db.schema.dropIndex(oldIndex).execute();
        continue;
      }
      // SQLite cannot change a table's key: a copy with the new one replaces the table.
      const rebuilt = `${table}Rebuilt`;
      let create = db.schema
        .createTable(rebuilt)
        .addColumn("projectId", "text", (c) => c.notNull())
        .addColumn("ownerKind", "text", (c) => c.notNull())
        .addColumn("ownerId", "text", (c) => c.notNull())
        .addColumn(name, "text", (c) => c.notNull());
      if (name === "key") {
        create = create
          .addColumn("textValue", "text")
          .addColumn("numberValue", "real")
          .addColumn("booleanValue", "integer");
      }
      await create
        .addColumn("startedAt", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint(`${table}Key`, key)
        .modifyEnd(sql`without rowid`)
        .execute();
      await sql`insert into ${sql.table(rebuilt)} select * from ${sql.table(table)}`.execute(db);
      await db.schema.dropTable(table).execute();
      await db.schema.alterTable(rebuilt).renameTo(table).execute();
    }
    if (dialect === "sqlite") {
      // Dropped with the old table.
      await db.schema
        .createIndex("logAttributesByTextValue")
        .on("logAttributes")
        .columns(["projectId", "ownerKind", "key", "textValue", "startedAt", "ownerId"])
        .where(sql.ref("textValue"), "is not", null)
        .execute();
    }
  },
});

/**
 * The tables whose rows the request hot paths cache (store/read-cache.ts): a change to any bumps the generation.
 * Migration 0007 gave these their triggers; a table cached later needs a migration of its own for its triggers.
 */
export const CACHED_TABLES = ["workspaces", "apiKeys", "projects", "deploymentEnvironments", "prompts", "deployments"];

/**
 * One counter, `cacheGeneration.generation`, that every insert, update or delete of a cached table increments
 * in the writing transaction — by trigger, so a write from any process (another replica, the CLI, SQL typed by
 * an operator) counts, and it becomes visible exactly when the write does.
 */
const cacheGeneration: (dialect: Dialect) => Migration = (dialect) => ({
  async up(db: AnyDb) {
    await db.schema
      .createTable("cacheGeneration")
      .addColumn("id", "integer", (c) => c.primaryKey().check(sql`id = 1`))
      .addColumn("generation", "bigint", (c) => c.notNull())
      .execute();
    await db.insertInto("cacheGeneration").values({ id: 1, generation: 1 }).execute();
    if (dialect === "postgres") {
      // Named by the schema the tables live in, so a session with another search_path still finds the counter.
      const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
      const table = sql.id(rows[0]?.schema as string, "cacheGeneration");
      await sql`create function "bumpCacheGeneration"() returns trigger language plpgsql as $$
        begin update ${table} set "generation" = "generation" + 1; return null; end $$`.execute(db);
      for (const table of CACHED_TABLES) {
        await sql`create trigger ${sql.id(`${table}BumpCacheGeneration`)} after insert or update or delete
          on ${sql.table(table)} for each statement execute function "bumpCacheGeneration"()`.execute(db);
      }
      return;
    }
    const bump = sql.raw(`update "cacheGeneration" set "generation" = "generation" + 1`);
    for (const table of CACHED_TABLES) {
      for (const event of ["insert", "update", "delete"]) {
        await sql`create trigger ${sql.id(`${table}BumpCacheGenerationOn${event}`)} after ${sql.raw(event)}
          on ${sql.table(table)} begin ${bump}; end`.execute(db);
      }
    }
  },
});

/** Every migration in order; names sort in the order they apply. */
export function migrations(dialect: Dialect): Record<string, Migration> {
  return {
    "0001-core": core(dialect),
    "0002-logs": logs(dialect),
    "0003-evaluations": evaluations(dialect),
    "0004-log-search": logSearch(dialect),
    "0005-partial-log-indexes": partialLogIndexes,
    "0006-side-rows-by-search-key": sideRowsBySearchKey(dialect),
    "0007-cache-generation": cacheGeneration(dialect),
  };
}
