import { type Migration, sql } from "kysely";
import type { Dialect } from "../dialect.ts";
import type { AnyDb } from "./any-db.ts";

/**
 * The rate limiter's counters that replicas share on PostgreSQL (store/rate-windows.ts): one row per workspace
 * and class of operation, holding the current minute's count. A new minute overwrites the row, so the table
 * never grows beyond its keys. Unlogged: its changes write no WAL, so a take commits without waiting for a
 * flush to disk; a crash of the database empties it, which only starts the current minute's counts afresh.
 * SQLite is served by one process, which counts in memory: no table there.
 */
export const rateLimitWindows: (dialect: Dialect) => Migration = (dialect) => ({
  async up(db: AnyDb) {
    if (dialect !== "postgres") return;
    await db.schema
      .createTable("rateLimitWindows")
      .modifyFront(sql`unlogged`)
      .addColumn("key", "text", (c) => c.primaryKey())
      .addColumn("windowStart", "bigint", (c) => c.notNull())
      .addColumn("count", "bigint", (c) => c.notNull())
      .addColumn("granted", "bigint", (c) => c.notNull())
      .execute();
  },
});
