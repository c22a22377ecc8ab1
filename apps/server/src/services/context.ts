import type { Kysely } from "kysely";
import type { Principal } from "../auth/principal.ts";
import type { IdGenerator } from "../ids.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import type { CachedReads } from "../store/read-cache.ts";
import type { Database } from "../store/schema.ts";
import { isTransientConflict, type Store } from "../store/store.ts";
import type { WriteBatcher } from "./logs/write-batcher.ts";

/** What every service receives: the database (or a transaction), the caller, the clock and id source. */
export interface ServiceContext {
  db: Kysely<Database>;
  store: Store;
  principal: Principal;
  /** Memoized reads of rarely changed records, as of the request's start (store/read-cache.ts). */
  cache: CachedReads;
  now: () => number;
  newId: IdGenerator;
  /** Signs pagination cursors. */
  cursorSecret: string;
  /** Group commit of log writes: one per app, shared by its requests. */
  logWrites: WriteBatcher;
  /** Seals and opens provider credentials. */
  secrets: SecretBox;
  /** Tells this process's evaluation worker, if any, that a run was queued (others poll). */
  wakeWorkers: () => void;
}

/** How many times a transaction that lost a deadlock (or a serialization conflict) is run in all. */
const TRANSACTION_ATTEMPTS = 3;

/**
 * Runs `work` in one transaction; services called inside share it through the context. A transaction the
 * database rolled back for a deadlock with another one (a prompt deleted while a worker records its run's
 * results) runs again from the start: `work` only touches the database, so running it again is safe.
 */
export async function inTransaction<T>(ctx: ServiceContext, work: (tx: ServiceContext) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.db.transaction().execute((trx) => work({ ...ctx, db: trx }));
    } catch (error) {
      if (attempt >= TRANSACTION_ATTEMPTS || !isTransientConflict(error)) throw error;
    }
  }
}
