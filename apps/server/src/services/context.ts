import type { Kysely } from "kysely";
import type { Principal } from "../auth/principal.ts";
import type { IdGenerator } from "../ids.ts";
import type { CallOptions } from "../llm/model-target.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import type { CachedReads } from "../store/read-cache.ts";
import type { Database } from "../store/schema.ts";
import type { Store } from "../store/store.ts";
import type { TransactionOptions } from "../store/transactions.ts";
import type { WriteBatcher } from "./logs/write-batcher.ts";
import type { WebhookSettings } from "./webhooks/settings.ts";

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
  /** Limits of a model call made while a request waits (runPrompt): the evaluation workers' timeout and retries. */
  modelCalls: Omit<CallOptions, "signal">;
  /** Tells this process's evaluation worker, if any, that a run was queued (others poll). */
  wakeWorkers: () => void;
  /** The webhook settings of the app (private addresses, delivery timeout) and its deliverer's wake-up. */
  webhooks: WebhookSettings;
}

/**
 * Runs `work` in one transaction, which services called inside share through the context: a service verb
 * called within another's transaction joins it. See store/transactions.ts for retries and savepoints.
 */
export function inTransaction<T>(
  ctx: ServiceContext,
  work: (tx: ServiceContext) => Promise<T>,
  options?: TransactionOptions,
): Promise<T> {
  return ctx.store.transaction(ctx.db, (db) => work({ ...ctx, db }), options);
}
