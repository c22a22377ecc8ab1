/**
 * The databases a run measures: a SQLite file in a temp directory, and a PostgreSQL database created for the
 * run (and dropped after it) on the local server.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";

export type StoreName = "sqlite" | "postgres";

export interface Database {
  store: StoreName;
  url: string;
  dispose(): Promise<void>;
}

export const DEFAULT_POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/postgres";

export function sqliteDatabase(dir: string): Database {
  const path = join(dir, "pharos-bench.db");
  return {
    store: "sqlite",
    url: `sqlite:${path}`,
    dispose: async () => {
      for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
    },
  };
}

async function adminQuery(adminUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3_000 });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** A fresh database on the server of `adminUrl` (a database the user may connect to, e.g. `postgres`). */
export async function postgresDatabase(adminUrl: string): Promise<Database> {
  const name = `pharos_bench_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  await adminQuery(adminUrl, `create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    store: "postgres",
    url: url.toString(),
    dispose: () => adminQuery(adminUrl, `drop database if exists ${name} with (force)`),
  };
}

/** Runs `analyze` on a database, as autovacuum would soon after a bulk load. */
export async function analyzePostgres(url: string): Promise<void> {
  await adminQuery(url, "analyze");
}
