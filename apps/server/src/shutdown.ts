/**
 * How the server and `pharos worker` end after SIGTERM/SIGINT: the orderly stop gets the grace period, and then
 * the process exits whatever is still pending, with an exit code that says whether the stop was clean.
 *
 * The log lines are part of it. pino's default destination writes to stdout asynchronously and, at exit, flushes
 * what is left synchronously, retrying every 100 ms while the pipe answers EAGAIN. A server whose parent had died
 * with its stdout pipe still open and unread therefore never finished exiting: after process.exit() it sat in that
 * retry loop, where no timer can run, for as long as nobody read the pipe. Here the lines get a bounded time to
 * be written, asynchronously, and whatever is still unwritten then is dropped before exiting.
 *
 * Beyond stdout, a stop can wait on anything (a request that never completes, a model call, a database close
 * that hangs): the grace period's timer exits regardless, since everything the stop waits for is asynchronous.
 */
import pino, { type Logger } from "pino";
import type { LogLevel } from "./config.ts";

/** Exit code of a stop that was not clean: work was still pending at the end of the grace period, or failed. */
export const EXIT_UNCLEAN = 3;
/** How long the last log lines get to reach stdout once the stop is over (or overdue). */
export const LOG_FLUSH_MS = 1000;
/** Log lines held in memory while stdout does not take them; lines beyond are dropped, not buffered without end. */
const LOG_BUFFER_BYTES = 16 * 1024 * 1024;

export interface ProcessLog {
  logger: Logger;
  /** Resolves true once every line logged so far is written, false when that takes longer than `timeoutMs`. */
  flush(timeoutMs: number): Promise<boolean>;
  /** Drops the lines not yet written, so that nothing waits for stdout at exit. */
  discard(): void;
}

/** The process's logger: JSON lines on stdout, written asynchronously, with a bounded buffer. */
export function processLog(level: LogLevel): ProcessLog {
  // `process.stdout.fd`, not 1: opening process.stdout makes Node set a pipe non-blocking, so a write the pipe
  // cannot take fails with EAGAIN (and is retried later) instead of blocking a thread-pool thread, which
  // process.exit() would wait for forever. sonic-boom's flush(cb) waits for the buffer to drain only when
  // minLength > 0 (at 0 it calls back at once); with 1 every line is still written as soon as it is logged.
  const destination = pino.destination({
    dest: process.stdout.fd,
    sync: false,
    minLength: 1,
    maxLength: LOG_BUFFER_BYTES,
  });
  return {
    logger: pino({ level }, destination),
    flush: (timeoutMs) =>
      new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), timeoutMs);
        // An error here is fsync's on a pipe (EINVAL) or a reader that is gone: nothing is left to write either way.
        destination.flush(() => {
          clearTimeout(timer);
          resolve(true);
        });
      }),
    // A destroyed destination is skipped by pino's synchronous flush at exit.
    discard: () => destination.destroy(),
  };
}

/**
 * How long rows in evaluation (the worker's) may go on once a stop begins: a second less than the grace period
 * (half of a shorter one), so that aborting the rest, giving them back and closing the database fit in it.
 */
export const workGrace = (graceMs: number) => Math.max(graceMs - 1000, graceMs / 2);

/** Marks `work` as pending until it settles, for the message of an overdue stop; returns it. */
export type Track = <T>(what: string, work: Promise<T>) => Promise<T>;

/**
 * Runs `stop` (the orderly stop, which marks what it waits for with `track` and resolves true when it ended
 * cleanly) and exits the process: code 0 when it ended within `graceMs` and every log line was written;
 * EXIT_UNCLEAN otherwise, at the latest LOG_FLUSH_MS after the grace period, whatever is still pending
 * (requests in flight, model calls, a database close, log lines stdout does not take).
 */
export async function exitAfter(
  log: ProcessLog,
  graceMs: number,
  stop: (track: Track) => Promise<boolean>,
): Promise<never> {
  const pending = new Set<string>();
  const track: Track = (what, work) => {
    pending.add(what);
    return work.finally(() => pending.delete(what));
  };
  let timer: NodeJS.Timeout | undefined;
  const overdue = new Promise<"overdue">((resolve) => {
    timer = setTimeout(() => resolve("overdue"), graceMs);
  });
  const stopped = stop(track).then(
    (clean) => (clean ? "clean" : "failed"),
    (error) => {
      log.logger.error({ err: error }, "stopping failed");
      return "failed" as const;
    },
  );
  const outcome = await Promise.race([stopped, overdue]);
  clearTimeout(timer);
  if (outcome === "overdue") {
    const what = [...pending].join(", ") || "the stop";
    log.logger.warn(
      { pending: [...pending] },
      `Grace period of ${graceMs / 1000} s over with ${what} still pending: exiting with code ${EXIT_UNCLEAN}`,
    );
  }
  const flushed = await log.flush(LOG_FLUSH_MS);
  log.discard();
  process.exit(outcome === "clean" && flushed ? 0 : EXIT_UNCLEAN);
}
