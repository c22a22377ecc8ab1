/**
 * A worker that executes evaluation runs: it claims rows through leases in the database (claims.ts), evaluates
 * up to `concurrency` rows at once (evaluate-item.ts), renews its leases while it works and records each
 * result with the run's progress (record-result.ts). Any number of workers may share a database: the
 * server's embedded one, and `pharos worker` processes on PostgreSQL.
 */
import { randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import type { Logger } from "pino";
import type { IdGenerator } from "../ids.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import type { Store } from "../store/store.ts";
import type { ApiCallSettings } from "./api-cell.ts";
import { type ClaimedItem, claimItems, releaseLeases, renewLeases, settleCancellingRuns } from "./claims.ts";
import { ComputedCellWorker } from "./computed-cell-worker.ts";
import { type FinishedRow, recordAndClaim } from "./record-result.ts";
import { type RunPlan, readRunPlan } from "./run-plan.ts";
import { Wakeup } from "./wakeup.ts";

export interface WorkerOptions {
  store: Store;
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
  /** The calls of `api` dataset columns: private addresses allowed (as for webhooks), timeout. */
  api?: ApiCallSettings;
}

/** `api` cells: no private addresses unless the operator allows them (PHAROS_WEBHOOKS_ALLOW_PRIVATE). */
export const DEFAULT_API_CALL_SETTINGS: ApiCallSettings = { allowPrivateAddresses: false, timeoutMs: 10_000 };

const DEFAULT_POLL_MS = 250;
/** Plans of recently seen runs (they never change). */
const PLAN_CACHE_SIZE = 64;

/**
 * The row pipeline (provider SDKs, grading) is loaded with the first row, not at start: a server that never
 * evaluates does not carry it in memory.
 */
let pipeline: Promise<typeof import("./evaluate-item.ts")> | undefined;
const loadPipeline = () => {
  pipeline ??= import("./evaluate-item.ts");
  return pipeline;
};

export class EvaluationWorker {
  readonly id = `worker_${randomUUID()}`;
  /** Results this worker recorded (for its logs and tests). */
  recordedRows = 0;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  /** Rows claimed and not yet recorded (or given back), by `runId/rowId`: each holds a slot. */
  private readonly inFlight = new Map<string, { item: ClaimedItem; evaluated: Promise<void> }>();
  /** Rows evaluated and waiting for the loop to record them. */
  private finished: FinishedRow[] = [];
  private readonly plans = new Map<string, RunPlan>();
  private readonly abort = new AbortController();
  private running: Promise<void> | undefined;
  private stopping = false;
  /** The loop's wait between passes: a wake-up or a finished row ends it. */
  private readonly wakeup = new Wakeup();
  /** Computes dataset cells in the same process, with its own slots (ADR 0020). */
  readonly cells: ComputedCellWorker;

  constructor(private readonly options: WorkerOptions) {
    this.leaseMs = options.leaseMs;
    this.pollMs = options.pollMs ?? DEFAULT_POLL_MS;
    this.cells = new ComputedCellWorker({
      ...options,
      pollMs: this.pollMs,
      api: options.api ?? DEFAULT_API_CALL_SETTINGS,
    });
    // Every model call of the rows in flight listens to the one abort signal.
    setMaxListeners(options.concurrency * 4 + 10, this.abort.signal);
    // The AI SDK reports what a provider ignored (an unsupported setting) on the console; keep it in our logs.
    globalThis.AI_SDK_LOG_WARNINGS = ({ warnings, provider, model }) =>
      options.logger.warn({ warnings, provider, model }, "the provider ignored part of a model call");
  }

  start(): void {
    this.running ??= this.loop();
    this.cells.start();
  }

  /** Work may be waiting: look now instead of at the next poll. */
  wake(): void {
    this.wakeup.wake();
    this.cells.wake();
  }

  /**
   * Stops claiming, lets the rows in flight finish for up to `graceMs` and records them, then aborts the rest
   * and gives their rows back, so another worker takes them at once rather than after the lease.
   */
  async stop(graceMs = 10_000): Promise<void> {
    const cellsStopped = this.cells.stop(graceMs);
    this.stopping = true;
    this.wake();
    // The loop ends after the transaction it may be in: from then on no row joins those in flight.
    await this.running;
    const evaluations = () => [...this.inFlight.values()].map((entry) => entry.evaluated);
    const grace = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref());
    await Promise.race([Promise.all(evaluations()), grace]);
    this.abort.abort(new Error("The worker is stopping"));
    await Promise.allSettled(evaluations());
    try {
      await this.recordFinished();
      await releaseLeases(
        this.options.store.db,
        this.id,
        [...this.inFlight.values()].map((entry) => entry.item),
      );
    } catch (error) {
      this.options.logger.error({ err: error }, "recording or giving back the rows in flight failed");
    }
    await cellsStopped;
  }

  private async loop(): Promise<void> {
    const heartbeat = setInterval(() => this.renew(), Math.max(1, Math.floor(this.leaseMs / 3)));
    heartbeat.unref();
    try {
      while (!this.stopping) {
        let progressed = false;
        try {
          progressed = await this.recordFinished();
          const claimed = await this.claim();
          if (!progressed && claimed === 0) await settleCancellingRuns(this.options.store.db, this.options.now());
          progressed ||= claimed > 0;
        } catch (error) {
          this.options.logger.error({ err: error }, "claiming or recording evaluation rows failed; retrying");
        }
        if (this.stopping) break;
        if (this.finished.length > 0) continue;
        // Full: wait for a row to finish. Nothing to do: wait for the next poll or a wake-up.
        if (this.inFlight.size >= this.options.concurrency) await this.wakeup.wait();
        else if (!progressed) await this.wakeup.wait(this.pollMs);
      }
    } finally {
      clearInterval(heartbeat);
    }
  }

  private context() {
    const { store, newId } = this.options;
    return { db: store.db, store, newId, owner: this.id, now: this.options.now(), leaseMs: this.leaseMs };
  }

  /** Claims rows for the free slots, from any run. */
  private async claim(): Promise<number> {
    const free = this.options.concurrency - this.inFlight.size;
    if (free <= 0) return 0;
    const items = await claimItems(this.context(), free);
    this.begin(items);
    return items.length;
  }

  /** Records the rows evaluated since the last call, run by run, each with the claim of its replacements. */
  private async recordFinished(): Promise<boolean> {
    if (this.finished.length === 0) return false;
    const byRun = new Map<string, FinishedRow[]>();
    for (const row of this.finished.splice(0)) byRun.set(row.item.runId, [...(byRun.get(row.item.runId) ?? []), row]);
    for (const [runId, rows] of byRun) {
      const freeAfter = this.options.concurrency - (this.inFlight.size - rows.length);
      let replacements: ClaimedItem[] = [];
      try {
        replacements = await recordAndClaim(this.context(), runId, rows, this.stopping ? 0 : freeAfter);
        this.recordedRows += rows.length;
      } catch (error) {
        this.options.logger.error(
          { err: error, runId },
          "recording evaluation results failed; their rows will be redone",
        );
      }
      for (const row of rows) this.inFlight.delete(keyOf(row.item));
      this.begin(replacements);
    }
    return true;
  }

  private begin(items: readonly ClaimedItem[]): void {
    for (const item of items) this.inFlight.set(keyOf(item), { item, evaluated: this.evaluate(item) });
  }

  private async evaluate(item: ClaimedItem): Promise<void> {
    try {
      const plan = await this.plan(item.runId);
      if (!plan) {
        this.inFlight.delete(keyOf(item)); // The run was deleted with its prompt.
        return;
      }
      const { evaluateItem } = await loadPipeline();
      const result = await evaluateItem(
        {
          db: this.options.store.db,
          secrets: this.options.secrets,
          call: { timeoutMs: this.options.providerTimeoutMs, maxRetries: this.options.providerMaxRetries },
        },
        plan,
        item,
        this.abort.signal,
      );
      // Stopping: the row stays in flight, to be given back, not recorded as failed.
      if (this.abort.signal.aborted) return;
      this.finished.push({ item, result });
    } catch (error) {
      // Its slot is freed; the row stays claimed, its lease runs out and a worker evaluates it again.
      this.inFlight.delete(keyOf(item));
      if (!this.abort.signal.aborted) {
        this.options.logger.error({ err: error, runId: item.runId, rowId: item.rowId }, "evaluating a row failed");
      }
    }
    this.wake();
  }

  private async plan(runId: string): Promise<RunPlan | undefined> {
    const cached = this.plans.get(runId);
    if (cached) return cached;
    const plan = await readRunPlan(this.options.store.db, runId);
    if (plan) {
      if (this.plans.size >= PLAN_CACHE_SIZE) this.plans.clear();
      this.plans.set(runId, plan);
    }
    return plan;
  }

  private renew(): void {
    if (this.inFlight.size === 0) return;
    renewLeases(this.options.store.db, this.id, this.options.now() + this.leaseMs).catch((error) =>
      this.options.logger.error({ err: error }, "renewing evaluation leases failed"),
    );
  }
}

const keyOf = (item: ClaimedItem) => `${item.runId}/${item.rowId}`;
