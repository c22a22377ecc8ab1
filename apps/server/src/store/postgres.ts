import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import type { Database } from "./schema.ts";
import { applyMigrations, type Store } from "./store.ts";

const INT8 = 20;

/**
 * PostgreSQL, for several stateless replicas sharing one database. `schema` puts Pharos's tables in a
 * schema of their own (it must exist), e.g. to isolate test runs.
 */
export function openPostgresStore(connectionString: string, options: { schema?: string } = {}): Store {
  const pool = new pg.Pool({
    connectionString,
    max: 10,
    ...(options.schema && { options: `-c search_path=${options.schema}` }),
    // Unix-ms timestamps are int8: read them as numbers (they stay far below 2^53).
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        oid === INT8 ? Number : pg.types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser,
    },
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    dialect: "postgres",
    async migrate() {
      // The schema the connection resolves names in (search_path: options.schema, or `options` in the URL).
      const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
      const schema = rows[0]?.schema;
      for (let attempt = 1; ; attempt++) {
        try {
          return await applyMigrations(db, "postgres", schema);
        } catch (error) {
          if (attempt >= 5 || !isOtherSchemaDropped(error, schema)) throw error;
        }
      }
    },
    insertRows: insertMultiRow,
    isUniqueViolation: (error) => (error as { code?: string } | null)?.code === "23505",
    close: () => db.destroy(),
  };
}

/** Bound parameters per statement, below PostgreSQL's 65,535. */
const MAX_PARAMETERS = 60_000;

/** Multi-row inserts (one round trip per statement), split so that no statement binds too many parameters. */
const insertMultiRow: Store["insertRows"] = async (db, table, rows) => {
  if (rows.length === 0) return;
  const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / Object.keys(rows[0] as object).length));
  for (let start = 0; start < rows.length; start += perStatement) {
    // The rows are typed by the caller; Kysely cannot follow a table name that is a type parameter.
    await db
      .insertInto(table)
      .values(rows.slice(start, start + perStatement) as never)
      .execute();
  }
};

/**
 * Kysely's migrator lists the tables of every schema of the database; a schema dropped by someone else during
 * that query fails it ("schema" 3F000 or "relation" 42P01 naming that other schema). Nothing of ours is wrong
 * then: the migration is retried.
 */
export function isOtherSchemaDropped(error: unknown, ours: string | undefined): boolean {
  const { code, message = "" } = (error ?? {}) as { code?: string; message?: string };
  const match = /^schema "([^"]+)"|^relation "([^".]+)\./.exec(message);
  const named = match?.[1] ?? match?.[2];
  return (code === "3F000" || code === "42P01") && ours !== undefined && named !== undefined && named !== ours;
}
