/**
 * Group commit for log writes. Each write request hands its database work over as one job; the jobs that
 * arrive within a few milliseconds (or while the previous batch is committing) run in ONE transaction, and
 * each job's promise settles only after that transaction has committed: an acknowledged write is durable,
 * and many writes share one commit. The window is waited only while writes are concurrent, so a lone writer
 * pays no delay.
 *
 * A job is either work on the transaction (reads and writes) or, for a new trace, only rows to insert (and
 * the new traces to add to the metrics rollups, whose deltas are built once for the whole batch, one per key:
 * services/metrics/rollups.ts `addNewTraces`). The
 * insert-only jobs of a batch are stored together first, one multi-row statement per table (on PostgreSQL a
 * round trip per table instead of several per request). Jobs are isolated from one another by a savepoint
 * each: a job that fails (a 404 or 409 found at write time, or any error) is rolled back to its savepoint and
 * rejected alone; the other jobs of the batch go on and commit. When the merged inserts fail (a duplicate
 * referenceId), they are undone and each insert-only job runs alone in its savepoint, which tells whose it was.
 * An insert-only job may create traces that could exist already (an OTLP trace arrives over many requests): the
 * batch reads once, for all such jobs, which of their traces are stored, and a job whose trace is stored (or
 * created by an earlier job of the batch) runs its other work instead, which attaches spans to it.
 * A job that lost a deadlock with another replica is run again alone, after the commit.
 * If the transaction fails as a whole (its commit, a lost connection), nothing of it was stored and each
 * job is run again alone, in a transaction of its own.
 *
 * Everything a job can check without the database is checked before it is submitted, so batches hold only
 * work that is expected to succeed. Batches run one at a time per process: SQLite has a single writer
 * anyway, and on PostgreSQL the jobs that queue up during one commit form the next batch.
 *
 * What waits for storage is bounded, so that writes arriving faster than storage commits them cannot grow
 * memory or latency without end; a write over a bound is answered 503 OVERLOADED, nothing of it stored:
 * - by number, when a write request arrives (`admit`, before its body is parsed or its key checked): at most
 *   `maxPendingWrites` are in progress; the next ones wait, first come first served, for up to `maxWaitMs`
 *   and at most 4 × `maxPendingWrites` of them, and are refused beyond. Refusing at once would cost little
 *   per request but, under clients that resend at once, as much in all as accepting: measured on
 *   PostgreSQL, the refusals' CPU starved the commits (ADR 0010). A write that waits costs an idle socket.
 * - by size, when its job is submitted: a job that would take the bytes (`approximateBytes`) of the jobs
 *   waiting for storage over `maxPendingBytes` is refused; an empty queue takes a job of any size.
 */
import type { Insertable, Kysely } from "kysely";
import { overloaded } from "../../errors.ts";
import type { Database } from "../../store/schema.ts";
import type { Store } from "../../store/store.ts";
import { isTransientConflict } from "../../store/transactions.ts";
import { addNewTraces, type NewTraceRollups } from "../metrics/rollups.ts";
import { addOriginAttributes, StoredOrigins } from "../otel/span-origins.ts";

/** The database work of one request, run on the batch's transaction (use only the handle it receives). */
export type WriteWork<T> = (db: Kysely<Database>) => Promise<T>;

type Table = keyof Database & string;
/**
 * Rows to insert, table by table in this order (a table's rows may refer to an earlier table's); and the new
 * traces to add to the metrics rollups (`newTraceRollups`, last), whose deltas are built for the whole batch.
 */
export type Inserts = (
  | { [T in Table]: { table: T; rows: readonly Insertable<Database[T]>[] } }[Table]
  | { table: "newTraceRollups"; rows: readonly NewTraceRollups[] }
)[];

export interface WriteBatcherOptions {
  /**
   * How long the first job of an idle batcher waits for others to join its batch, in ms, while writes are
   * concurrent (the previous batch held several jobs); a lone writer waits only one event-loop turn.
   */
  windowMs: number;
  /** A batch closes at this many jobs; more wait for the next batch. */
  maxJobs: number;
  /** The most write requests in progress at once (admitted and not yet answered); more wait (`admit`). */
  maxPendingWrites: number;
  /** How long a write waits for its turn before it is refused, in ms. */
  maxWaitMs: number;
  /** The most bytes (`approximateBytes`) of the jobs waiting for storage; beyond, a job is refused. */
  maxPendingBytes: number;
}

export const DEFAULT_WRITE_BATCH: WriteBatcherOptions = {
  windowMs: 2,
  maxJobs: 128,
  maxPendingWrites: 256,
  maxWaitMs: 1000,
  maxPendingBytes: 64 * 1024 * 1024,
};

/** Writes that may wait for their turn, per write in progress. */
const WAITING_PER_WRITE = 4;
/** What a refused write is told: by then the writes ahead of it have been committed (see ADR 0010). */
const RETRY_AFTER_SECONDS = 1;

/** What the batcher has done, for tests and benchmarks (a test hook; no endpoint exposes it). */
export interface WriteBatcherStats {
  /** Batches run, one transaction each. */
  batches: number;
  /** Transactions begun: one per batch, plus one per job re-run alone after its batch failed as a whole. */
  transactions: number;
  /** Jobs settled (resolved or rejected). */
  jobs: number;
  /** The most jobs one batch held. */
  largestBatch: number;
  /** Batches whose transaction failed as a whole, so that their jobs were re-run one per transaction. */
  fallbacks: number;
  /** Insert-only jobs stored by their batch's merged statements. */
  mergedJobs: number;
  /** Number of batches by size (jobs per batch). */
  sizes: Map<number, number>;
  /** Writes refused because what waits for storage was at a bound. */
  refused: number;
  /** Writes that had to wait for their turn (`admit`). */
  waited: number;
  /** The most jobs, and the most bytes, that were waiting for storage at once. */
  largestPending: { jobs: number; bytes: number };
}

/** A trace by the reference a client gave it (unique in its project). */
export interface TraceReference {
  projectId: string;
  referenceId: string;
}

interface Job {
  work: WriteWork<unknown>;
  /** The rows of an insert-only job (its `work` inserts them alone). */
  inserts?: Inserts;
  /**
   * The traces an insert-only job creates, when they may exist already (`submitNewTraces`): should one be
   * stored, or created by an earlier job of the batch, the job runs `otherwise` instead of inserting.
   */
  newTraces?: { references: readonly TraceReference[]; otherwise: WriteWork<unknown> };
  /** Whether its last run was `otherwise` (so its rows were not inserted as they are). */
  ranOtherwise?: boolean;
  bytes: number;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export class WriteBatcher {
  readonly options: WriteBatcherOptions;
  readonly stats: WriteBatcherStats = {
    batches: 0,
    transactions: 0,
    jobs: 0,
    largestBatch: 0,
    fallbacks: 0,
    mergedJobs: 0,
    sizes: new Map(),
    refused: 0,
    waited: 0,
    largestPending: { jobs: 0, bytes: 0 },
  };
  private queue: Job[] = [];
  /** Write requests admitted and not yet answered, and those waiting for their turn, first come first. */
  private admitted = 0;
  private readonly waiting: (() => void)[] = [];
  /** Jobs submitted and not yet settled, and their bytes. */
  private pendingJobs = 0;
  private pendingBytes = 0;
  private timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  /** Span origins stored by this batcher's committed jobs: their rows are not inserted again. */
  private readonly storedOrigins = new StoredOrigins();
  private running = false;
  /** Jobs of the previous batch: more than one means writers are concurrent, and waiting pays. */
  private lastBatchSize = 0;
  /** When the last write was answered or its job settled (`performance.now()`), for `busyWithin`. */
  private lastBusyAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly store: Store,
    options: Partial<WriteBatcherOptions> = {},
  ) {
    this.options = { ...DEFAULT_WRITE_BATCH, ...options };
    const { maxJobs, windowMs, maxPendingWrites, maxWaitMs, maxPendingBytes } = this.options;
    const valid = maxJobs >= 1 && windowMs >= 0 && maxPendingWrites >= 1 && maxWaitMs >= 0 && maxPendingBytes >= 0;
    if (!valid) {
      throw new Error(`invalid write batch options: ${JSON.stringify(this.options)}`);
    }
  }

  /** Whether a write request is in progress (admitted and not yet answered) or waiting for its turn. */
  get busy(): boolean {
    return this.admitted > 0 || this.pendingJobs > 0;
  }

  /**
   * Whether a write is in progress or one ended less than `ms` ago: under steady writes there are instants
   * with none in progress (between a batch's answers and the clients' next requests), which `busy` alone
   * would take for a gap.
   */
  busyWithin(ms: number): boolean {
    return this.busy || performance.now() - this.lastBusyAt < ms;
  }

  /**
   * Runs `work` in the next batch; settles once that batch has committed (or the work failed). `bytes` is the
   * size of what the work holds until then (`approximateBytes` of its rows). Rejects with 503 OVERLOADED at
   * once, without running `work`, when it would take the jobs waiting for storage over their size bound.
   */
  submit<T>(work: WriteWork<T>, bytes: number): Promise<T> {
    return this.enqueue(work, bytes);
  }

  /**
   * Admits a write request: at once while fewer than `maxPendingWrites` are in progress, otherwise after the
   * writes waiting before it, when one in progress is answered. Resolves with the release to call once the
   * request is answered (whatever the answer); rejects with 503 OVERLOADED when too many wait already or its
   * turn has not come within `maxWaitMs`.
   */
  async admit(): Promise<() => void> {
    const { maxPendingWrites, maxWaitMs } = this.options;
    if (this.admitted < maxPendingWrites && this.waiting.length === 0) {
      this.admitted += 1;
    } else {
      if (this.waiting.length >= WAITING_PER_WRITE * maxPendingWrites) this.refuse();
      this.stats.waited += 1;
      const admitted = await new Promise<boolean>((resolve) => {
        const turn = () => {
          clearTimeout(timer);
          resolve(true);
        };
        const timer = setTimeout(() => {
          this.waiting.splice(this.waiting.indexOf(turn), 1);
          resolve(false);
        }, maxWaitMs);
        this.waiting.push(turn);
      });
      if (!admitted) this.refuse();
      // Let in by a release: it takes over the place of the write that released it (`admitted` unchanged).
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.lastBusyAt = performance.now();
      const next = this.waiting.shift();
      if (next) next();
      else this.admitted -= 1;
    };
  }

  private refuse(): never {
    this.stats.refused += 1;
    throw overloaded(RETRY_AFTER_SECONDS);
  }

  /** Inserts the rows in the next batch, as `submit` does (and refuses them as it does). */
  submitInserts(inserts: Inserts): Promise<void> {
    const bytes = bytesOf(inserts);
    return this.enqueue((db) => this.insert(db, inserts), bytes, inserts);
  }

  /**
   * Inserts the rows of new traces (`traces`) in the next batch as `submitInserts` does, unless one of them is
   * stored by then or created by an earlier job of the batch: then runs `otherwise` in the batch instead, and
   * resolves with its result (undefined when the rows were inserted). The batch asks the database once for
   * all its jobs' traces, inside its transaction, so a write does not wait for a read of its own before it.
   */
  submitNewTraces<T>(
    inserts: Inserts,
    traces: readonly TraceReference[],
    otherwise: WriteWork<T>,
  ): Promise<T | undefined> {
    const bytes = bytesOf(inserts);
    return this.enqueue(async (db) => void (await this.insert(db, inserts)), bytes, inserts, {
      references: traces,
      otherwise,
    }) as Promise<T | undefined>;
  }

  private enqueue<T>(work: WriteWork<T>, bytes: number, inserts?: Inserts, newTraces?: Job["newTraces"]): Promise<T> {
    if (this.pendingJobs > 0 && this.pendingBytes + bytes > this.options.maxPendingBytes) {
      this.stats.refused += 1;
      return Promise.reject(overloaded(RETRY_AFTER_SECONDS));
    }
    this.pendingJobs += 1;
    this.pendingBytes += bytes;
    const largest = this.stats.largestPending;
    largest.jobs = Math.max(largest.jobs, this.pendingJobs);
    largest.bytes = Math.max(largest.bytes, this.pendingBytes);
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, inserts, newTraces, bytes, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  private async insert(db: Kysely<Database>, inserts: Inserts): Promise<void> {
    for (const entry of inserts) {
      // The metrics rollups are deltas added to existing rows (several jobs share keys), not inserts; span
      // origins' rows are stored once, by the first write of an origin (and not sent again once committed).
      if (entry.table === "newTraceRollups") await addNewTraces(db, entry.rows);
      else if (entry.table === "logOriginAttributes") {
        await addOriginAttributes(db, this.storedOrigins.unknown(entry.rows));
      } else await this.store.insertRows(db, entry.table, entry.rows);
    }
  }

  private schedule(): void {
    if (this.running) return; // the running batch starts the next one when it ends
    if (this.queue.length >= this.options.maxJobs) {
      this.flush();
      return;
    }
    if (this.timer !== undefined) return;
    const fire = () => {
      this.timer = undefined;
      this.flush();
    };
    const wait = this.lastBatchSize > 1 ? this.options.windowMs : 0;
    this.timer = wait === 0 ? setImmediate(fire) : setTimeout(fire, wait);
  }

  private flush(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer as NodeJS.Timeout);
      clearImmediate(this.timer as NodeJS.Immediate);
      this.timer = undefined;
    }
    if (this.running || this.queue.length === 0) return;
    const jobs = this.queue.splice(0, this.options.maxJobs);
    this.lastBatchSize = jobs.length;
    this.running = true;
    void this.runBatch(jobs).then((outcomes) => {
      // Not running any more before anyone hears of the outcome, so a job submitted in answer starts a batch.
      this.running = false;
      jobs.forEach((job, index) => {
        this.settle(job, outcomes[index] as Outcome);
      });
      // Jobs that queued up during the commit have waited long enough: they form the next batch at once.
      if (this.queue.length > 0) this.flush();
    });
  }

  /** Runs one batch; never rejects: each job's outcome is returned, in order. */
  private async runBatch(jobs: Job[]): Promise<Outcome[]> {
    this.stats.batches += 1;
    this.stats.transactions += 1;
    this.stats.largestBatch = Math.max(this.stats.largestBatch, jobs.length);
    this.stats.sizes.set(jobs.length, (this.stats.sizes.get(jobs.length) ?? 0) + 1);
    let outcomes: Outcome[];
    let merged = false;
    let inserting: number[] = [];
    try {
      outcomes = await this.store.transaction(this.store.db, async (trx) => {
        const results: (Outcome | undefined)[] = jobs.map(() => undefined);
        merged = false;
        // Jobs whose new trace turns out to exist run their other work, after the inserts that may create it.
        const attaching = await attachingJobs(trx, this.store, jobs);
        inserting = jobs.flatMap((job, index) => (job.inserts && !attaching.has(index) ? [index] : []));
        if (inserting.length > 1) {
          const rows = mergeInserts(inserting.map((index) => jobs[index]?.inserts as Inserts));
          merged = (await this.inSavepoint(trx, (db) => this.insert(db, rows))).ok;
          if (merged) for (const index of inserting) results[index] = { ok: true, value: undefined };
        }
        for (const [index, job] of jobs.entries()) {
          job.ranOtherwise = attaching.has(index);
          const work = job.ranOtherwise ? (job.newTraces?.otherwise as WriteWork<unknown>) : job.work;
          results[index] ??= await this.inSavepoint(trx, work);
        }
        return results as Outcome[];
      });
    } catch {
      // The transaction failed as a whole, so none of it was stored: run each job again, alone.
      this.stats.fallbacks += 1;
      const alone: Outcome[] = [];
      for (const job of jobs) alone.push(await this.runAlone(job));
      return alone;
    }
    if (merged) this.stats.mergedJobs += inserting.length;
    // A job that lost a deadlock with another replica's batch gets one more try, alone, after the commit.
    for (const [index, outcome] of outcomes.entries()) {
      if (!outcome.ok && isTransientConflict(outcome.error)) outcomes[index] = await this.runAlone(jobs[index] as Job);
    }
    return outcomes;
  }

  /** Runs `work` in a savepoint of the batch's transaction: a job that fails is undone alone. */
  private async inSavepoint(trx: Kysely<Database>, work: WriteWork<unknown>): Promise<Outcome> {
    try {
      return { ok: true, value: await this.store.transaction(trx, work, { savepoint: true }) };
    } catch (error) {
      return { ok: false, error };
    }
  }

  /** Runs the job in a transaction of its own (which runs it again should it lose a deadlock). */
  private async runAlone(job: Job): Promise<Outcome> {
    this.stats.transactions += 1;
    job.ranOtherwise = false;
    try {
      return { ok: true, value: await this.store.transaction(this.store.db, job.work) };
    } catch (error) {
      return { ok: false, error };
    }
  }

  private settle(job: Job, outcome: Outcome): void {
    this.stats.jobs += 1;
    this.pendingJobs -= 1;
    this.pendingBytes -= job.bytes;
    this.lastBusyAt = performance.now();
    // Settled after its transaction: a job whose inserts succeeded has its origins' rows committed (inserted by
    // it or found stored). Its other work may have stored no span, and so no origin.
    if (outcome.ok && !job.ranOtherwise) {
      for (const entry of job.inserts ?? []) {
        if (entry.table === "logOriginAttributes") this.storedOrigins.committed(entry.rows);
      }
    }
    if (outcome.ok) job.resolve(outcome.value);
    else job.reject(outcome.error);
  }
}

const PROBE_CHUNK = 500;

/**
 * The jobs of a batch (indexes) whose new traces exist: stored already (one read per project for the whole
 * batch, in its transaction), or created by an earlier job of the batch.
 */
async function attachingJobs(db: Kysely<Database>, store: Store, jobs: readonly Job[]): Promise<Set<number>> {
  const attaching = new Set<number>();
  const byProject = new Map<string, Set<string>>();
  for (const job of jobs) {
    for (const { projectId, referenceId } of job.newTraces?.references ?? []) {
      const references = byProject.get(projectId) ?? new Set<string>();
      references.add(referenceId);
      byProject.set(projectId, references);
    }
  }
  if (byProject.size === 0) return attaching;
  const exists = new Set<string>();
  for (const [projectId, references] of byProject) {
    const all = [...references];
    for (let at = 0; at < all.length; at += PROBE_CHUNK) {
      const { rows } = await store.sql.storedTraceReferences(projectId, all.slice(at, at + PROBE_CHUNK)).execute(db);
      for (const row of rows) exists.add(`${projectId}\n${row.referenceId}`);
    }
  }
  for (const [index, job] of jobs.entries()) {
    const keys = (job.newTraces?.references ?? []).map(({ projectId, referenceId }) => `${projectId}\n${referenceId}`);
    if (keys.some((key) => exists.has(key))) attaching.add(index);
    // Created by this job if it inserts: a later job of the batch with one of them attaches to it.
    else for (const key of keys) exists.add(key);
  }
  return attaching;
}

/** The rows of several jobs, one entry per table in the order the tables first appear. */
function mergeInserts(jobs: readonly Inserts[]): Inserts {
  const byTable = new Map<Inserts[number]["table"], unknown[]>();
  for (const inserts of jobs) {
    for (const { table, rows } of inserts) {
      const merged = byTable.get(table) ?? [];
      merged.push(...rows);
      byTable.set(table, merged);
    }
  }
  // Each entry's rows were typed by its table on the way in.
  return [...byTable].map(([table, rows]) => ({ table, rows }) as Inserts[number]);
}

/** What a job's rows hold; its rollups' spans repeat a few fields of its span rows, counted with them. */
const bytesOf = (inserts: Inserts) =>
  inserts.reduce((sum, { table, rows }) => (table === "newTraceRollups" ? sum : sum + approximateBytes(rows)), 0);

/**
 * Roughly how much memory `value` holds: its strings' lengths and 8 bytes per other value, counted through
 * arrays and plain objects. Cheap enough to run on every write (a 5-span trace's 42 rows in a few µs).
 */
export function approximateBytes(value: unknown): number {
  if (typeof value === "string") return value.length;
  if (Array.isArray(value)) {
    let sum = 0;
    for (const item of value) sum += approximateBytes(item);
    return sum;
  }
  if (typeof value === "object" && value !== null) {
    let sum = 0;
    for (const key in value) sum += key.length + approximateBytes((value as Record<string, unknown>)[key]);
    return sum;
  }
  return 8;
}
