/**
 * The retention sweeper (ADR 0019): a loop in every server process that deletes expired logs
 * (services/retention/delete-expired-logs.ts) about once a minute, and tidies the queue of live spans
 * (services/online-evaluation/queue-hygiene.ts, ADR 0016). Replicas sweep side by side without
 * coordination: each batch locks the traces it deletes and skips those another holds.
 */
import pino, { type Logger } from "pino";
import { type QueueHygieneResult, tidyOnlineEvaluations } from "../services/online-evaluation/queue-hygiene.ts";
import { deleteExpiredLogs } from "../services/retention/delete-expired-logs.ts";
import { prepareSpanPartitions } from "../services/retention/span-partitions.ts";
import type { Store } from "../store/store.ts";
import { Wakeup } from "./wakeup.ts";

export interface RetentionSweeperOptions {
  store: Store;
  now: () => number;
  /** Default: silent. */
  logger?: Logger;
  /** Time between passes when the last one finished everything. */
  intervalMs?: number;
}

const DEFAULT_INTERVAL_MS = 60_000;

export class RetentionSweeper {
  private running: Promise<void> | undefined;
  private stopping = false;
  private readonly wakeup = new Wakeup();
  private readonly logger: Logger;

  constructor(private readonly options: RetentionSweeperOptions) {
    this.logger = options.logger ?? pino({ level: "silent" });
  }

  start(): void {
    this.running ??= this.loop();
  }

  /** Stops after the batch in progress (each batch is one short transaction). */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wakeup.wake();
    await this.running;
  }

  /**
   * One pass, to its end: what expired dropped or deleted, then the log partitions of the coming days made
   * (PostgreSQL, ADR 0027; after, so that the deletion a process starts with is not held up by it). The loop
   * runs it, tests call it with their clock.
   */
  async sweep(): Promise<{ traces: number; spans: number; partitions: number }> {
    let total = { traces: 0, spans: 0, partitions: 0 };
    for (;;) {
      const pass = await deleteExpiredLogs({
        store: this.options.store,
        now: this.options.now(),
        // Between batches the event loop serves requests: deletion never holds the database for long.
        pause: () => new Promise((resolve) => setImmediate(resolve)),
      });
      total = {
        traces: total.traces + pass.traces,
        spans: total.spans + pass.spans,
        partitions: total.partitions + pass.partitions,
      };
      if (!pass.more || this.stopping) break;
    }
    await prepareSpanPartitions(this.options.store, this.options.now());
    return total;
  }

  /** One pass over the queue of live spans; the loop runs it after each sweep, tests call it with their clock. */
  tidyOnlineEvaluations(): Promise<QueueHygieneResult> {
    return tidyOnlineEvaluations({
      store: this.options.store,
      now: this.options.now(),
      pause: () => new Promise((resolve) => setImmediate(resolve)),
    });
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      try {
        const deleted = await this.sweep();
        if (deleted.traces + deleted.partitions > 0) {
          this.logger.info(deleted, "retention: deleted expired traces and their spans");
        }
      } catch (error) {
        this.logger.error({ err: error }, "deleting expired logs failed; retrying at the next pass");
      }
      try {
        const tidied = await this.tidyOnlineEvaluations();
        if (tidied.orphaned + tidied.settled + tidied.pruned > 0) {
          this.logger.info(tidied, "online evaluation: tidied the queue of live spans");
        }
      } catch (error) {
        this.logger.error({ err: error }, "tidying the queue of live spans failed; retrying at the next pass");
      }
      if (this.stopping) break;
      await this.wakeup.wait(this.options.intervalMs ?? DEFAULT_INTERVAL_MS);
    }
  }
}
