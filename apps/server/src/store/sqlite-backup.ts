/**
 * An online backup of a SQLite database (`pharos backup`): a consistent copy while servers go on writing, through
 * SQLite's backup API (better-sqlite3's `backup()`).
 *
 * The backup API restarts a copy whenever another connection (a server) writes between two of its steps, so a
 * copy made in small steps under a steady write load may never finish. Here, after the first step (which only
 * sizes the database), the rest is copied in one step: one read transaction, a snapshot as of its start. In WAL
 * mode the servers' writes go on meanwhile; they only keep the WAL from being checkpointed past that snapshot
 * until the copy is done.
 *
 * The copy is written to a temporary file beside the target and renamed into place when complete, so the target
 * never holds half a copy.
 */
import { existsSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import SQLite from "better-sqlite3";

export interface SqliteBackup {
  /** The copy's size. */
  pages: number;
  bytes: number;
  /** When the copy's snapshot was taken (Unix ms). */
  at: number;
}

/** Copies the SQLite database at `source` to `target` (replacing it when it exists). */
export async function backupSqlite(source: string, target: string): Promise<SqliteBackup> {
  if (!existsSync(source)) throw new Error(`there is no database at ${source}`);
  const db = new SQLite(source, { fileMustExist: true });
  const partial = join(dirname(target), `.${basename(target)}.partial-${process.pid}`);
  try {
    db.pragma("busy_timeout = 5000");
    let at = Date.now();
    const { totalPages } = await db.backup(partial, {
      progress: () => {
        at = Date.now();
        return 0x7fffffff; // everything in the next step
      },
    });
    renameSync(partial, target);
    return { pages: totalPages, bytes: statSync(target).size, at };
  } finally {
    db.close();
    rmSync(partial, { force: true });
  }
}
