/**
 * A throwaway database for tests and the conformance kit: a SQLite file in a temp directory, or a fresh schema
 * of a PostgreSQL database (which an unreachable server fails loudly). `dispose` removes it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { openPostgresStore } from "./postgres.ts";
import { openSqliteStore } from "./sqlite.ts";
import type { Store } from "./store.ts";

export interface ScratchStore {
  store: Store;
  /** Another connection to the same database, as a second process would open (closed by `dispose`). */
  openAnother(): Store;
  dispose(): Promise<void>;
}

async function execute(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

export async function openScratchStore(postgresUrl?: string): Promise<ScratchStore> {
  if (postgresUrl) {
    const schema = `scratch_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
    await execute(postgresUrl, `create schema ${schema}`);
    const store = openPostgresStore(postgresUrl, { schema });
    const others: Store[] = [];
    return {
      store,
      openAnother: () => remember(others, openPostgresStore(postgresUrl, { schema })),
      async dispose() {
        await Promise.all(others.map((other) => other.close()));
        await store.close();
        await execute(postgresUrl, `drop schema ${schema} cascade`);
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), "pharos-scratch-"));
  const store = openSqliteStore(join(dir, "pharos.db"));
  const others: Store[] = [];
  return {
    store,
    openAnother: () => remember(others, openSqliteStore(join(dir, "pharos.db"))),
    async dispose() {
      await Promise.all(others.map((other) => other.close()));
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function remember(opened: Store[], store: Store): Store {
  opened.push(store);
  return store;
}
