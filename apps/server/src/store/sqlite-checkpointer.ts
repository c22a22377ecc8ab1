/**
 * WAL checkpoints off the request thread. SQLite's automatic checkpoint runs inside the commit that crosses
 * the threshold: it copies the WAL's pages into the database file and fsyncs it, blocking the event loop for
 * tens of milliseconds under a write load. A worker thread with a connection of its own checkpoints instead,
 * often and PASSIVE (never waiting for the writer, which goes on meanwhile).
 *
 * The writer's own automatic checkpoint stays on at a higher threshold (`WRITER_CHECKPOINT_PAGES`) as the
 * backstop: if the thread is behind or gone, the WAL still stays bounded, and the writer's checkpoint, which
 * finds most pages already copied, lets the next transaction start the WAL file over.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/** The writer's automatic checkpoint threshold, in pages (SQLite's default is 1,000). */
export const WRITER_CHECKPOINT_PAGES = 10_000;
/** How often the thread checkpoints, in ms. */
const INTERVAL_MS = 200;

// Plain CommonJS evaluated as the thread's code: no TypeScript loader or bundle entry needed for a dozen lines.
const THREAD_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const SQLite = require(workerData.driver);
const db = new SQLite(workerData.path);
db.pragma("busy_timeout = 5000");
const timer = setInterval(() => {
  try {
    db.pragma("wal_checkpoint(PASSIVE)");
  } catch {
    // Busy or closing: the next turn (or the writer's backstop) checkpoints.
  }
}, workerData.intervalMs);
parentPort.on("message", () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export interface Checkpointer {
  /** Stops the thread after its current checkpoint. */
  stop(): Promise<void>;
}

export function startCheckpointer(path: string): Checkpointer {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  const worker = new Worker(THREAD_SOURCE, { eval: true, workerData: { path, driver, intervalMs: INTERVAL_MS } });
  // A failed thread only loses the offloading: the writer's backstop keeps checkpointing.
  worker.on("error", () => {});
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  return {
    stop() {
      // Held again, so that a process awaiting the stop does not run out of work before the thread exits.
      worker.ref();
      worker.postMessage("stop");
      return exited;
    },
  };
}
