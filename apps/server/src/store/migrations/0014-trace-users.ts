import { type Migration, sql } from "kysely";
import type { AnyDb } from "./any-db.ts";

/**
 * Traces name the end user of the application they served (`userId`, null when not given). The index serves the
 * flat `userId` search and the users list (GET /projects/{projectId}/users), which groups a project's traces by
 * user; like the session index (migration 0005) it holds only the traces that have a value, so that traces
 * without a user cost no index entry.
 */
export const traceUsers: Migration = {
  async up(db: AnyDb) {
    await db.schema.alterTable("logTraces").addColumn("userId", "text").execute();
    await db.schema
      .createIndex("logTracesByUser")
      .on("logTraces")
      .columns(["projectId", "userId", "startedAt", "id"])
      .where(sql.ref("userId"), "is not", null)
      .execute();
  },
};
