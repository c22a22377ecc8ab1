/**
 * A worker that executes evaluation runs: it claims rows through leases in the database (claims.ts), evaluates
 * up to `concurrency` rows at once (evaluate-item.ts), renews its leases while it works and records each
 * result with the run's progress (record-result.ts). Any number of workers may share a database: the
 * server's embedded one, and `pharos worker` processes on PostgreSQL.
 *
 * The same slots grade live spans queued for continuous evaluation (online-claims.ts, grade-span.ts,
 * record-span-result.ts): run rows are claimed first, queued spans take the slots left.
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
import type { SpanToGrade } from "./grade-span.ts";
import { type ClaimedSpan, claimSpans, releaseSpanLeases, renewSpanLeases, spanKey } from "./online-claims.ts";
import { type FinishedRow, recordAndClaim } from "./record-result.ts";
import { type GradedSpan, recordSpanResults, recordUnclaimedSpanResults } from "./record-span-result.ts";
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
  /** Judge calls one `llm-as-a-judge` evaluator may make per minute on live spans, across workers. */
  onlineJudgeCallsPerMinute?: number;
  /**
   * Whether the process's log writes are in progress: while it answers true, the worker claims live spans at
   * most once per `maxIngestionDeferralMs` (those in flight finish), so that grading, which shares the process
   * and, on SQLite, the one writer, takes little from ingestion, yet still progresses under writes that never
   * stop; the rest of the queue waits for a gap. Run rows are claimed as ever. Unset: never busy.
   */
  ingestionBusy?: () => boolean;
  /** The longest the worker defers live spans to busy log writes (default 200 ms; see `ingestionBusy`). */
  maxIngestionDeferralMs?: number;
  /** The calls of `api` dataset columns: private addresses allowed (as for webhooks), timeout. */
  api?: ApiCallSettings;
}

const DEFAULT_ONLINE_JUDGE_CALLS_PER_MINUTE = 60;
/** Live spans a worker grades at once, judged ones included (those are bounded by the slots as well). */
const SPANS_IN_FLIGHT = 50;
/**
 * Under log writes that never stop, a claim of up to SPANS_IN_FLIGHT live spans every 200 ms: at most 250
 * spans a second are graded then, a small share of the writes' work, and the queue never stalls.
 */
const DEFAULT_MAX_INGESTION_DEFERRAL_MS = 200;

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
let onlineGrading: Promise<typeof import("./grade-span.ts")> | undefined;
const loadOnlineGrading = () => {
  onlineGrading ??= import("./grade-span.ts");
  return onlineGrading;
};

export class EvaluationWorker {
  readonly id = `worker_${randomUUID()}`;
  /** Results this worker recorded (for its logs and tests). */
  recordedRows = 0;
  /** Live spans' grades this worker recorded (for its logs and tests). */
  gradedSpans = 0;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  /** Rows claimed and not yet recorded (or given back), by `runId/rowId`: each holds a slot. */
  private readonly inFlight = new Map<string, { item: ClaimedItem; evaluated: Promise<void> }>();
  /** Queued live spans claimed and not yet recorded (or given back), by `spanId/evaluatorId`: each holds a slot. */
  private readonly spansInFlight = new Map<string, { span: ClaimedSpan; graded: Promise<void> }>();
  /** When live spans were last claimed (`performance.now()`: wall time, whatever the clock of records). */
  private lastSpanClaimAt = Number.NEGATIVE_INFINITY;
  /** Until when the last pass deferred live spans to log writes (`performance.now()`). */
  private deferredUntil = Number.NEGATIVE_INFINITY;
  /** Spans graded and waiting for the loop to record them (all of them in one transaction). */
  private gradedToRecord: GradedSpan[] = [];
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

  /**
   * Work may be waiting: look now instead of at the next poll. Log writes call this for every write that queues
   * spans: while the worker defers live spans to them, the end of the deferral wakes it instead (one pass per
   * bound, not a pass and its queries per write, on the connections and, on SQLite, the writer they share).
   */
  wake(): void {
    this.cells.wake();
    if (this.stopping || performance.now() >= this.deferredUntil) this.wakeup.wake();
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
    const evaluations = () => [
      ...[...this.inFlight.values()].map((entry) => entry.evaluated),
      ...[...this.spansInFlight.values()].map((entry) => entry.graded),
    ];
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
      await releaseSpanLeases(
        this.options.store.db,
        this.id,
        [...this.spansInFlight.values()].map((entry) => entry.span),
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
        if (this.finished.length > 0 || this.gradedToRecord.length > 0) continue;
        // Full: wait for a row to finish. Nothing to do: wait for the next poll or a wake-up.
        if (this.busySlots() >= this.options.concurrency) await this.wakeup.wait();
        else if (!progressed) await this.wakeup.wait(this.untilNextPass());
      }
    } finally {
      clearInterval(heartbeat);
    }
  }

  private context() {
    const { store, newId } = this.options;
    return { db: store.db, store, newId, owner: this.id, now: this.options.now(), leaseMs: this.leaseMs };
  }

  /** Slots held: run rows and live spans graded by a judge model (each may make a model call). */
  private busySlots(): number {
    let judged = 0;
    for (const { span } of this.spansInFlight.values()) if (span.judged) judged += 1;
    return this.inFlight.size + judged;
  }

  /**
   * Claims rows for the free slots, from any run, then queued live spans: those graded by a judge for the slots
   * left, the others up to SPANS_IN_FLIGHT.
   */
  private async claim(): Promise<number> {
    const free = this.options.concurrency - this.busySlots();
    const items = free > 0 ? await claimItems(this.context(), free) : [];
    this.begin(items);
    const limit = SPANS_IN_FLIGHT - this.spansInFlight.size;
    if (limit <= 0 || this.deferringToIngestion()) return items.length;
    this.lastSpanClaimAt = performance.now();
    const { claimed: spans, atOnce } = await claimSpans(
      {
        ...this.context(),
        judgeCallsPerMinute: this.options.onlineJudgeCallsPerMinute ?? DEFAULT_ONLINE_JUDGE_CALLS_PER_MINUTE,
      },
      { limit, judgeLimit: Math.max(0, free - items.length) },
    );
    const gradedAtOnce = await this.gradeAtOnce(atOnce);
    if (spans.length === 0) return items.length + gradedAtOnce;
    const read = this.readClaimedSpans(spans);
    const batch = { grading: spans.filter((span) => !span.judged).length };
    for (const span of spans) {
      this.spansInFlight.set(spanKey(span), { span, graded: this.grade(span, read, batch) });
    }
    return items.length + spans.length + gradedAtOnce;
  }

  /** Grades spans whose grading is a computation on the span alone, and records them in one transaction. */
  private async gradeAtOnce(spans: readonly ClaimedSpan[]): Promise<number> {
    if (spans.length === 0) return 0;
    const { store, secrets, now, newId } = this.options;
    const { readSpansToGrade, gradeSpan, notGraded } = await loadOnlineGrading();
    const read = await readSpansToGrade(store.db, spans);
    const graded: GradedSpan[] = [];
    for (const span of spans) {
      const toGrade = read.get(spanKey(span));
      const result = toGrade
        ? await gradeSpan(
            {
              db: store.db,
              secrets,
              call: { timeoutMs: this.options.providerTimeoutMs, maxRetries: this.options.providerMaxRetries },
            },
            toGrade,
            this.abort.signal,
          ).catch(
            // A failure is a result here: the span would otherwise fail the same way at every pass.
            (error: unknown) => notGraded(`Grading failed: ${(error as Error).message}`),
          )
        : notGraded("The span is gone.");
      graded.push({ span, toGrade, result });
    }
    const recorded = await recordUnclaimedSpanResults({ db: store.db, store, now: now(), newId }, graded);
    this.gradedSpans += recorded;
    return recorded;
  }

  /** Whether log writes are busy and the last claim of live spans was less than the deferral bound ago. */
  private deferringToIngestion(): boolean {
    if (!this.options.ingestionBusy?.()) return false;
    const bound = this.options.maxIngestionDeferralMs ?? DEFAULT_MAX_INGESTION_DEFERRAL_MS;
    this.deferredUntil = this.lastSpanClaimAt + bound;
    return performance.now() < this.deferredUntil;
  }

  /** An idle loop's wait: the poll, or less when a deferral to log writes ends sooner. */
  private untilNextPass(): number {
    const deferral = Math.ceil(this.deferredUntil - performance.now());
    return deferral > 0 ? Math.min(this.pollMs, deferral) : this.pollMs;
  }

  /** What grading needs of the claimed spans, read in one query. */
  private async readClaimedSpans(spans: readonly ClaimedSpan[]) {
    const { readSpansToGrade } = await loadOnlineGrading();
    return readSpansToGrade(this.options.store.db, spans);
  }

  /**
   * Grades one queued span (read with its claim) and hands its result to the loop to record. The loop is woken
   * when the last span of its claim not graded by a judge is graded (they finish together: one record and
   * one claim for the lot, rather than a first one for the first spans graded and their few replacements),
   * and by each judged one (a model call's time apart).
   */
  private async grade(
    span: ClaimedSpan,
    read: Promise<Map<string, SpanToGrade>>,
    batch: { grading: number },
  ): Promise<void> {
    const { store, secrets } = this.options;
    try {
      const { gradeSpan } = await loadOnlineGrading();
      const toGrade = (await read).get(spanKey(span));
      const result = toGrade
        ? await gradeSpan(
            {
              db: store.db,
              secrets,
              call: { timeoutMs: this.options.providerTimeoutMs, maxRetries: this.options.providerMaxRetries },
            },
            toGrade,
            this.abort.signal,
          )
        : { grade: "unknown" as const, score: 0, reason: "", error: "The span is gone.", judgeCalls: 0 };
      // Stopping: the span stays in flight, to be given back, not recorded as failed.
      if (this.abort.signal.aborted) return;
      this.gradedToRecord.push({ span, toGrade, result });
    } catch (error) {
      // Its slot is freed; the span stays claimed, its lease runs out and a worker grades it again.
      this.spansInFlight.delete(spanKey(span));
      if (!this.abort.signal.aborted) {
        this.options.logger.error({ err: error, ...span }, "grading a live span failed");
      }
    }
    if (!span.judged) batch.grading -= 1;
    if (span.judged || batch.grading === 0) this.wakeup.wake();
  }

  /** Records the rows evaluated since the last call, run by run, each with the claim of its replacements. */
  private async recordFinished(): Promise<boolean> {
    const spansRecorded = await this.recordGradedSpans();
    if (this.finished.length === 0) return spansRecorded;
    const byRun = new Map<string, FinishedRow[]>();
    for (const row of this.finished.splice(0)) byRun.set(row.item.runId, [...(byRun.get(row.item.runId) ?? []), row]);
    for (const [runId, rows] of byRun) {
      const freeAfter = this.options.concurrency - (this.busySlots() - rows.length);
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

  /** Records the spans graded since the last call, in one transaction, and frees their slots. */
  private async recordGradedSpans(): Promise<boolean> {
    if (this.gradedToRecord.length === 0) return false;
    const graded = this.gradedToRecord.splice(0);
    const { store, now, newId } = this.options;
    try {
      this.gradedSpans += await recordSpanResults({ db: store.db, store, now: now(), newId }, graded);
    } catch (error) {
      this.options.logger.error({ err: error }, "recording live span grades failed; their spans will be graded again");
    }
    for (const { span } of graded) this.spansInFlight.delete(spanKey(span));
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
    this.wakeup.wake();
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
    const expiresAt = this.options.now() + this.leaseMs;
    if (this.inFlight.size > 0) {
      renewLeases(this.options.store.db, this.id, expiresAt).catch((error) =>
        this.options.logger.error({ err: error }, "renewing evaluation leases failed"),
      );
    }
    if (this.spansInFlight.size > 0) {
      renewSpanLeases(this.options.store.db, this.id, expiresAt).catch((error) =>
        this.options.logger.error({ err: error }, "renewing live span leases failed"),
      );
    }
  }
}

const keyOf = (item: ClaimedItem) => `${item.runId}/${item.rowId}`;
