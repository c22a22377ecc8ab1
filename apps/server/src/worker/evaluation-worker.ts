/**
 * A worker that executes evaluation runs: it claims rows through leases in the database (claims.ts), evaluates
 * up to `concurrency` rows at once (evaluate-item.ts), renews its leases while it works and records each
 * result with the run's progress (record-result.ts). Any number of workers may share a database: the
 * server's embedded one, and `pharos worker` processes on PostgreSQL.
 */
import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { IdGenerator } from "../ids.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import type { Dialect } from "../store/migrations.ts";
import type { Database } from "../store/schema.ts";
import { type ClaimedItem, claimItems, releaseLeases, renewLeases, settleCancellingRuns } from "./claims.ts";
import { evaluateItem } from "./evaluate-item.ts";
import { ResultWriter } from "./record-result.ts";
import { type RunPlan, readRunPlan } from "./run-plan.ts";

export interface WorkerOptions {
  db: Kysely<Database>;
  dialect: Dialect;
  secrets: SecretBox;
  logger: Logger;
  now: () => number;
  newId: IdGenerator;
  /** Rows evaluated at once. */
  concurrency: number;
  providerTimeoutMs: number;
  providerMaxRetries: number;
  /** How long a claim holds without renewal; a dead worker's rows wait this long before another takes them. */
  leaseMs: number;
  /** How often an idle worker looks for work queued by other processes. */
  pollMs?: number;
}

const DEFAULT_POLL_MS = 250;
/** Plans of recently seen runs (they never change). */
const PLAN_CACHE_SIZE = 64;

export class EvaluationWorker {
  readonly id = `worker_${randomUUID()}`;
  /** Results this worker recorded (for its logs and tests). */
  recordedRows = 0;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly inFlight = new Map<string, { item: ClaimedItem; done: Promise<void> }>();
  private readonly plans = new Map<string, RunPlan>();
  private readonly abort = new AbortController();
  private readonly results: ResultWriter;
  private running: Promise<void> | undefined;
  private stopping = false;
  /** The loop's wait, and whether something happened since it last looked (so no signal is ever lost). */
  private waiter: (() => void) | undefined;
  private signalled = false;

  constructor(private readonly options: WorkerOptions) {
    this.leaseMs = options.leaseMs;
    this.pollMs = options.pollMs ?? DEFAULT_POLL_MS;
    this.results = new ResultWriter(options.db, options);
    // The AI SDK reports what a provider ignored (an unsupported setting) on the console; keep it in our logs.
    globalThis.AI_SDK_LOG_WARNINGS = ({ warnings, provider, model }) =>
      options.logger.warn({ warnings, provider, model }, "the provider ignored part of a model call");
  }

  start(): void {
    this.running ??= this.loop();
  }

  /** Work may be waiting: look now instead of at the next poll. */
  wake(): void {
    if (this.waiter) this.waiter();
    else this.signalled = true;
  }

  /**
   * Stops claiming, lets the rows in flight finish for up to `graceMs`, then aborts the rest and gives their
   * rows back, so another worker takes them at once rather than after the lease.
   */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopping = true;
    this.wake();
    // The loop ends after the claim it may be making: from then on no row joins those in flight.
    await this.running;
    const grace = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref());
    await Promise.race([Promise.all([...this.inFlight.values()].map((entry) => entry.done)), grace]);
    this.abort.abort(new Error("The worker is stopping"));
    const unfinished = [...this.inFlight.values()].map((entry) => entry.item);
    await Promise.allSettled([...this.inFlight.values()].map((entry) => entry.done));
    await releaseLeases(this.options.db, this.id, unfinished).catch((error) =>
      this.options.logger.error({ err: error }, "giving back unfinished evaluation rows failed"),
    );
  }

  private async loop(): Promise<void> {
    const { logger } = this.options;
    const heartbeat = setInterval(() => this.renew(), Math.max(1, Math.floor(this.leaseMs / 3)));
    heartbeat.unref();
    try {
      while (!this.stopping) {
        let claimed = 0;
        try {
          claimed = await this.claim();
          if (claimed === 0) await settleCancellingRuns(this.options.db, this.options.now());
        } catch (error) {
          logger.error({ err: error }, "claiming evaluation rows failed; retrying");
        }
        if (this.stopping) break;
        // Full: wait for a row to finish. Nothing to claim: wait for the next poll or a wake-up.
        if (this.inFlight.size >= this.options.concurrency) await this.signal();
        else if (claimed === 0) await this.signal(this.pollMs);
      }
    } finally {
      clearInterval(heartbeat);
    }
  }

  private async claim(): Promise<number> {
    const free = this.options.concurrency - this.inFlight.size;
    if (free <= 0) return 0;
    const items = await claimItems(
      {
        db: this.options.db,
        dialect: this.options.dialect,
        owner: this.id,
        now: this.options.now(),
        leaseMs: this.leaseMs,
      },
      free,
    );
    for (const item of items) {
      const key = `${item.runId}/${item.rowId}`;
      const done = this.process(item).finally(() => {
        this.inFlight.delete(key);
        this.wake();
      });
      this.inFlight.set(key, { item, done });
    }
    return items.length;
  }

  private async process(item: ClaimedItem): Promise<void> {
    const { db, logger } = this.options;
    try {
      const plan = await this.plan(item.runId);
      if (!plan) return; // The run was deleted with its prompt.
      const result = await evaluateItem(
        {
          db,
          secrets: this.options.secrets,
          call: { timeoutMs: this.options.providerTimeoutMs, maxRetries: this.options.providerMaxRetries },
        },
        plan,
        item,
        this.abort.signal,
      );
      if (this.abort.signal.aborted) return; // Stopping: the row is given back, not recorded as failed.
      await this.results.record(item, result);
      this.recordedRows++;
    } catch (error) {
      // Left claimed: its lease runs out and a worker evaluates it again.
      if (!this.abort.signal.aborted)
        logger.error({ err: error, ...item, values: undefined }, "evaluating a row failed");
    }
  }

  private async plan(runId: string): Promise<RunPlan | undefined> {
    const cached = this.plans.get(runId);
    if (cached) return cached;
    const plan = await readRunPlan(this.options.db, runId);
    if (plan) {
      if (this.plans.size >= PLAN_CACHE_SIZE) this.plans.clear();
      this.plans.set(runId, plan);
    }
    return plan;
  }

  private renew(): void {
    if (this.inFlight.size === 0) return;
    renewLeases(this.options.db, this.id, this.options.now() + this.leaseMs).catch((error) =>
      this.options.logger.error({ err: error }, "renewing evaluation leases failed"),
    );
  }

  /** Resolves at the next wake-up or finished row (at once if one came since the last wait), or after `timeoutMs`. */
  private signal(timeoutMs?: number): Promise<void> {
    if (this.signalled) {
      this.signalled = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = timeoutMs === undefined ? undefined : setTimeout(() => this.waiter?.(), timeoutMs);
      this.waiter = () => {
        clearTimeout(timer);
        this.waiter = undefined;
        resolve();
      };
    });
  }
}
