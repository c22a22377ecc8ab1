import { type Migration, sql } from "kysely";
import type { Dialect } from "../dialect.ts";
import type { AnyDb } from "./any-db.ts";

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
export const cacheGeneration: (dialect: Dialect) => Migration = (dialect) => ({
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
