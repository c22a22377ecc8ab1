import {
  Kysely,
  PostgresDialect,
  type PostgresPool,
  type PostgresPoolClient,
  type PostgresQueryResult,
  sql,
} from "kysely";
import pg from "pg";
import { postgresSql } from "./dialect-sql.ts";
import { sharedRateWindows } from "./rate-windows.ts";
import type { Database } from "./schema.ts";
import { postgresSpanPartitions } from "./span-partitions.ts";
import { applyMigrations, type Store } from "./store.ts";
import { transactionsOn } from "./transactions.ts";

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
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: withCallbackQueries(pool) }) });
  const transaction = transactionsOn(db, "begin");
  return {
    db,
    dialect: "postgres",
    transaction,
    sql: postgresSql,
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
    insertRows: unnestInserter(),
    readCacheGeneration: async () => {
      const { rows } = await sql<{ generation: number }>`select "generation" from "cacheGeneration"`.execute(db);
      return (rows[0] as { generation: number }).generation;
    },
    rateWindows: sharedRateWindows(db),
    spanPartitions: postgresSpanPartitions(db, transaction),
    isUniqueViolation: (error) => (error as { code?: string } | null)?.code === "23505",
    close: () => db.destroy(),
  };
}

/**
 * The pool as Kysely takes it, its clients' queries run through pg's callback API. Asked for a promise instead
 * (`client.query(text, values)`, as Kysely asks), pg's answers outlived their queries: every young-generation
 * collection copied and promoted the rows of the last few queries. Measured on the
 * metrics query's 2,163 rows: 3–5 MB promoted and 15–45 ms a collection, against under 10 KB and about 1 ms
 * with callbacks (ADR 0017). Each client is wrapped once, so that Kysely keeps one connection object per client.
 */
function withCallbackQueries(pool: pg.Pool): PostgresPool {
  const wrapped = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    const query = <R>(text: string, values: readonly unknown[]) =>
      new Promise<PostgresQueryResult<R>>((resolve, reject) => {
        client.query(text, values as unknown[], (error, result) =>
          error ? reject(error) : resolve(result as PostgresQueryResult<R>),
        );
      });
    // Kysely streams through a cursor only when its dialect is given one, which this store's is not.
    return { query: query as PostgresPoolClient["query"], release: () => client.release() };
  };
  return {
    async connect() {
      const client = await pool.connect();
      let connection = wrapped.get(client);
      if (!connection) {
        connection = wrap(client);
        wrapped.set(client, connection);
      }
      return connection;
    },
    end: () => pool.end(),
  };
}

/**
 * Inserts as `insert … select * from unnest($1::text[], $2::int8[], …)`: one array parameter per column, so the
 * statement is the same whatever the number of rows. A multi-row VALUES list binds a parameter per cell, which
 * PostgreSQL parses and plans one by one (a batch of 50 traces is over 8,000 of them): unnest inserts the same
 * rows in about two thirds of the time. unnest needs each array's type: a table's column types are read from
 * the catalog on its first insert, and again should a column be missing (a migration since).
 */
function unnestInserter(): Store["insertRows"] {
  const columnTypes = new Map<string, Map<string, string>>();
  const readTypes = async (db: Kysely<Database>, table: string) => {
    const { rows } = await sql<{ column: string; type: string }>`
      select column_name as "column", udt_name as "type" from information_schema.columns
      where table_schema = current_schema() and table_name = ${table}`.execute(db);
    const types = new Map(rows.map(({ column, type }) => [column, type]));
    columnTypes.set(table, types);
    return types;
  };
  return async (db, table, rows) => {
    const first = rows[0];
    if (first === undefined) return;
    const columns = Object.keys(first);
    let types = columnTypes.get(table);
    if (!types || columns.some((column) => !types?.has(column))) types = await readTypes(db, table);
    const arrays = columns.map((column) => {
      const type = types?.get(column);
      if (type === undefined) throw new Error(`insertRows: ${table} has no column ${column}`);
      const values = rows.map((row) => (row as Record<string, unknown>)[column] ?? null);
      return sql`${values}::${sql.raw(`"${type}"`)}[]`;
    });
    await sql`insert into ${sql.table(table)} (${sql.join(columns.map((column) => sql.ref(column)))})
      select * from unnest(${sql.join(arrays)})`.execute(db);
  };
}

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
