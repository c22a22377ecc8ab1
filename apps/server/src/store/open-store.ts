import { openPostgresStore } from "./postgres.ts";
import { openSqliteStore } from "./sqlite.ts";
import type { Store } from "./store.ts";

/** `sqlite:/path/file.db` (or a bare path), `postgres://…` / `postgresql://…`. */
export function openStore(databaseUrl: string): Store {
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) return openPostgresStore(databaseUrl);
  const path = databaseUrl.replace(/^sqlite:(\/\/)?/, "");
  if (path === "") throw new Error(`DATABASE_URL has no path: ${databaseUrl}`);
  return openSqliteStore(path);
}
