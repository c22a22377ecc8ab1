import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { addHistogramTexts } from "../services/metrics/latency-histogram.ts";
import { sqliteSql } from "./dialect-sql.ts";
import { processRateWindows } from "./rate-windows.ts";
import type { Database } from "./schema.ts";
import { startCheckpointer, WRITER_CHECKPOINT_PAGES } from "./sqlite-checkpointer.ts";
import { applyMigrations, type Store } from "./store.ts";
import { transactionsOn } from "./transactions.ts";

/** The embedded default: one SQLite file in WAL mode. */
export function openSqliteStore(path: string): Store {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SQLite(path);
  sqlite.pragma("journal_mode = WAL");
  // FULL: an acknowledged write survives a power loss too; group commit pays one fsync per batch, not per request.
  sqlite.pragma("synchronous = FULL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  // The metrics rollups add histograms in their upserts (migration 0013 creates the same function on PostgreSQL).
  sqlite.function("pharos_histogram_add", { deterministic: true }, (a, b) =>
    addHistogramTexts(a as string, b as string),
  );
  const checkpointer = path === ":memory:" ? undefined : startCheckpointer(path);
  sqlite.pragma(`wal_autocheckpoint = ${checkpointer ? WRITER_CHECKPOINT_PAGES : 1_000}`);
  const cached = withStatementCache(sqlite);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: cached }) });
  // Prepared on first use (the table exists once migrated) and not through the shared cache: pluck() is a mode.
  let generation: SQLite.Statement<[], number> | undefined;
  return {
    db,
    dialect: "sqlite",
    transaction: transactionsOn(db, "begin immediate"),
    sql: sqliteSql,
    async migrate() {
      // Kysely takes no migration lock on SQLite: hold the write lock ourselves, so a second process starting
      // on the same file (the CLI beside a first start) waits (busy_timeout) instead of re-creating tables.
      sqlite.exec("begin immediate");
      try {
        await applyMigrations(db, "sqlite");
        sqlite.exec("commit");
      } catch (error) {
        if (sqlite.inTransaction) sqlite.exec("rollback");
        throw error;
      }
    },
    // The file has one connection, the one every Kysely handle (a transaction's too) runs on: running the
    // statements on it directly is running them in the caller's transaction, without building SQL per row.
    insertRows: async (_db, table, rows) => {
      if (rows.length === 0) return;
      const columns = Object.keys(rows[0] as object);
      const insert = cached.prepare(
        `insert into "${table}" (${columns.map((column) => `"${column}"`).join(", ")}) values (${columns.map(() => "?").join(", ")})`,
      );
      for (const row of rows) insert.run(columns.map((column) => (row as Record<string, unknown>)[column]));
    },
    readCacheGeneration: async () => {
      // Between the statements of a transaction (another request's), the connection would show that
      // transaction's uncommitted bump: wait for the connection, as every Kysely query does.
      if (sqlite.inTransaction) {
        return (await db.selectFrom("cacheGeneration").select("generation").executeTakeFirstOrThrow()).generation;
      }
      generation ??= sqlite.prepare<[], number>(`select "generation" from "cacheGeneration"`).pluck();
      return generation.get() as number;
    },
    rateWindows: processRateWindows(),
    isUniqueViolation: (error) =>
      typeof error === "object" &&
      error !== null &&
      ["SQLITE_CONSTRAINT_UNIQUE", "SQLITE_CONSTRAINT_PRIMARYKEY"].includes((error as { code?: string }).code ?? ""),
    async close() {
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely's SQLite driver prepares every query anew; preparing costs as much as running a small insert. The
 * queries are few distinct texts (values are bound), so reuse the prepared statements. One connection runs one
 * statement at a time (Kysely serializes access), so sharing a statement object is safe.
 */
function withStatementCache(sqlite: SQLite.Database): SQLite.Database {
  const cache = new Map<string, SQLite.Statement>();
  const prepare = sqlite.prepare.bind(sqlite);
  return new Proxy(sqlite, {
    get(target, property, receiver) {
      if (property !== "prepare") return Reflect.get(target, property, receiver);
      return (source: string) => {
        let statement = cache.get(source);
        if (!statement) {
          if (cache.size >= STATEMENT_CACHE_SIZE) cache.clear();
          statement = prepare(source);
          cache.set(source, statement);
        }
        return statement;
      };
    },
  });
}
