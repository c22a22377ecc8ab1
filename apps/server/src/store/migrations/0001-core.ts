import type { Migration } from "kysely";
import type { Dialect } from "../dialect.ts";
import type { AnyDb } from "./any-db.ts";

export const core: (dialect: Dialect) => Migration = () => ({
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
