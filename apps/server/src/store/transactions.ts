/**
 * The one way Pharos opens transactions. Services, workers and the log write batcher all call
 * `store.transaction`, so that two verbs called inside one another share one transaction whatever calls them.
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "./schema.ts";

export interface TransactionOptions {
  /**
   * When the call joins a transaction already open: run `work` in a savepoint, so that its failure undoes its
   * own writes only and leaves the enclosing transaction usable (on PostgreSQL too, where a failed statement
   * otherwise aborts the whole transaction). A new transaction needs none: it is rolled back whole.
   */
  savepoint?: boolean;
}

/**
 * Runs `work` in a transaction and returns its result once committed. `db` is the caller's handle: when it is
 * an open transaction's, `work` joins it (commits or rolls back with it); otherwise a transaction begins on a
 * connection of its own. `work` must use only the handle it receives.
 */
export type RunInTransaction = <T>(
  db: Kysely<Database>,
  work: (trx: Kysely<Database>) => Promise<T>,
  options?: TransactionOptions,
) => Promise<T>;

/** How many times a transaction that lost a deadlock (or a serialization conflict) is run in all. */
const ATTEMPTS = 3;

/**
 * PostgreSQL's deadlock (40P01) and serialization (40001) failures: the database rolled the transaction back
 * because of another one's timing, and running it again is the documented remedy.
 */
export const isTransientConflict = (error: unknown): boolean =>
  ["40P01", "40001"].includes((error as { code?: string } | null)?.code ?? "");

/**
 * The transaction method of a store whose handle is `root`, beginning with `begin` (SQLite: `begin immediate`,
 * which takes the write lock up front, so a transaction that reads before it writes cannot fail to upgrade its
 * lock while another connection writes).
 *
 * A new transaction that lost a deadlock runs again from the start (its work only touches the database, so
 * running it again is safe); a joined one leaves that to the transaction it joined.
 */
export function transactionsOn(root: Kysely<Database>, begin: "begin" | "begin immediate"): RunInTransaction {
  // Handles of the transactions open now: a handle is a connection, and the set tells whether one is in a
  // transaction (Kysely's own transactions cannot be nested, nor begun with `begin immediate`).
  const open = new WeakSet<Kysely<Database>>();
  // Transactions a savepoint of which could not be rolled back: what they hold is unknown, so they must not
  // commit, whoever caught the savepoint's error.
  const broken = new WeakSet<Kysely<Database>>();

  const runOnce = <T>(work: (trx: Kysely<Database>) => Promise<T>) =>
    root.connection().execute(async (connection) => {
      await sql.raw(begin).execute(connection);
      open.add(connection);
      try {
        const result = await work(connection);
        if (broken.has(connection)) throw new Error("A savepoint could not be rolled back: the transaction is undone.");
        await sql`commit`.execute(connection);
        return result;
      } catch (error) {
        // A failed commit may have ended the transaction already; the work's error is the one to report.
        await sql`rollback`.execute(connection).catch(() => {});
        throw error;
      } finally {
        open.delete(connection);
        broken.delete(connection);
      }
    });

  /** Nested savepoints may share a name: both databases roll back to and release the newest one of a name. */
  const inSavepoint = async <T>(trx: Kysely<Database>, work: (trx: Kysely<Database>) => Promise<T>): Promise<T> => {
    await sql`savepoint nested`.execute(trx);
    try {
      const result = await work(trx);
      await sql`release savepoint nested`.execute(trx);
      return result;
    } catch (error) {
      try {
        // On PostgreSQL this also clears the transaction's failed state.
        await sql`rollback to savepoint nested`.execute(trx);
        await sql`release savepoint nested`.execute(trx);
      } catch (undoError) {
        broken.add(trx);
        throw undoError;
      }
      throw error;
    }
  };

  return async (db, work, options = {}) => {
    if (open.has(db)) return options.savepoint ? inSavepoint(db, work) : work(db);
    for (let attempt = 1; ; attempt++) {
      try {
        return await runOnce(work);
      } catch (error) {
        if (attempt >= ATTEMPTS || !isTransientConflict(error)) throw error;
      }
    }
  };
}
