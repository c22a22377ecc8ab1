import { randomBytes } from "node:crypto";
import { type Insertable, type Kysely, Migrator } from "kysely";
import type { Dialect } from "./dialect.ts";
import type { DialectSql } from "./dialect-sql.ts";
import { migrations } from "./migrations/index.ts";
import type { RateWindows } from "./rate-windows.ts";
import type { Database } from "./schema.ts";
import type { SpanPartitions } from "./span-partitions.ts";
import type { RunInTransaction } from "./transactions.ts";

/**
 * An open database: the Kysely handle services query through, its transactions, what its dialect spells
 * differently, and the adapter's own duties.
 */
export interface Store {
  readonly db: Kysely<Database>;
  /** Which database this is: for the adapter's own tests; code elsewhere uses `sql` and the methods below. */
  readonly dialect: Dialect;
  readonly transaction: RunInTransaction;
  /** Row locks and JSON functions in this database's spelling. */
  readonly sql: DialectSql;
  /** Applies pending migrations (idempotent; safe with several replicas starting at once). */
  migrate(): Promise<void>;
  /**
   * Inserts rows into `table` on `db` (the store's handle or a transaction's) in the adapter's fastest form.
   * Every row has the same columns, in the same order.
   */
  insertRows<T extends keyof Database & string>(
    db: Kysely<Database>,
    table: T,
    rows: readonly Insertable<Database[T]>[],
  ): Promise<void>;
  /**
   * The committed value of the cache generation (migration 0007), which every change to a cached table bumps;
   * the adapter's cheapest read, as it runs on every request.
   */
  readCacheGeneration(): Promise<number>;
  /**
   * The rate limiter's counters: on PostgreSQL a table every replica shares, on SQLite (one process serves
   * the file) this process's memory.
   */
  readonly rateWindows: RateWindows;
  /**
   * PostgreSQL's time partitions of `logSpans` (ADR 0027), which retention prepares and drops; undefined on
   * SQLite, whose spans are one table.
   */
  readonly spanPartitions?: SpanPartitions;
  /** Whether an error is the database refusing a duplicate of a unique key. */
  isUniqueViolation(error: unknown): boolean;
  close(): Promise<void>;
}

/**
 * `schema` (PostgreSQL): where Kysely keeps its migration tables. Without it Kysely looks for them in every
 * schema of the database, finds another schema's and then fails to lock ("kysely_migration_lock does not
 * exist") — e.g. two test files in their own schemas, or a database another Kysely app also uses.
 */
export async function applyMigrations(db: Kysely<Database>, dialect: Dialect, schema?: string): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations(dialect) },
    ...(schema && { migrationTableSchema: schema }),
  });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error;
}

/** A per-database secret (cursor signatures): created once, shared by every replica of the database. */
export async function databaseSecret(db: Kysely<Database>, key: string): Promise<string> {
  await db
    .insertInto("settings")
    .values({ key, value: randomBytes(32).toString("hex") })
    .onConflict((oc) => oc.column("key").doNothing())
    .execute();
  const row = await db.selectFrom("settings").select("value").where("key", "=", key).executeTakeFirstOrThrow();
  return row.value;
}
