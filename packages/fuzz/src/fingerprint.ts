/**
 * A cheap fingerprint of everything the API can store: per table, its row count and its latest `updatedAt`
 * (or `createdAt`). A rejected write and a read must leave it as it was. The world's clock never repeats a
 * millisecond (world.ts), so an update of any row moves its table's latest `updatedAt`.
 */
import type { Store } from "@pharos/server";
import { sql } from "kysely";

/**
 * Tables every authenticated request may write, before its input is read: when a key was last used (at most once
 * a minute) and, on PostgreSQL, the rate limits' counts shared by replicas (a row per workspace and class, which a
 * new minute overwrites).
 */
const WRITTEN_BY_ANY_REQUEST = new Set(["apiKeyUsage", "rateLimitWindows"]);

export type Fingerprint = Record<string, string>;

export async function fingerprinter(store: Store): Promise<() => Promise<Fingerprint>> {
  // On PostgreSQL, introspection lists every schema's tables: the store's is the connection's current one.
  const schema =
    store.dialect === "postgres"
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(store.db)).rows[0]?.schema
      : undefined;
  const tables = (await store.db.introspection.getTables()).filter(
    (table) =>
      !table.isView && (schema === undefined || table.schema === schema) && !WRITTEN_BY_ANY_REQUEST.has(table.name),
  );
  const parts = tables.map((table) => {
    const columns = new Set(table.columns.map((column) => column.name));
    const latest = ["updatedAt", "createdAt"].find((column) => columns.has(column));
    const max = latest ? `max("${latest}")` : "null";
    return `select '${table.name}' as "table", count(*) as "rows", ${max} as "latest" from "${table.name}"`;
  });
  const query = sql.raw<{ table: string; rows: unknown; latest: unknown }>(parts.join(" union all "));
  return async () => {
    const { rows } = await query.execute(store.db);
    return Object.fromEntries(rows.map((row) => [row.table, `${String(row.rows)} rows, latest ${String(row.latest)}`]));
  };
}

/** The tables whose fingerprint differs, with before → after. */
export function changedTables(before: Fingerprint, after: Fingerprint): string[] {
  return Object.keys(after)
    .filter((table) => before[table] !== after[table])
    .map((table) => `${table}: ${before[table]} → ${after[table]}`);
}
