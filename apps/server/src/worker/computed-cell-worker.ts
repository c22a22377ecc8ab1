/**
 * Computes the cells of `prompt` and `api` columns (ADR 0020): claims due cells through leases in the database
 * (computed-cell-claims.ts), computes up to `concurrency` at once (compute-cell.ts), renews its leases while it
 * works, and settles the cells finished since its last pass together, in one transaction. It claims up to
 * `concurrency` cells ahead of its slots, so a finished cell's slot takes the next claimed cell at once: the
 * slots do not wait for the loop's settle and claim (which, one cell finishing at a time, made a column of
 * 1,000 cells 3–8× slower than its provider on a loaded machine). It runs beside the evaluation worker, in the
 * same processes, with its own slots, so a long evaluation does not hold up a column and the other way round.
 */
import { randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import type { Logger } from "pino";
import type { SecretBox } from "../secrets/secret-box.ts";
import type { Store } from "../store/store.ts";
import type { ApiCallSettings } from "./api-cell.ts";
import type { CellKey, CellOutcome, ColumnPlans } from "./compute-cell.ts";
import {
  type CellClaimContext,
  type ComputedCell,
  claimCells,
  releaseCellLeases,
  renewCellLeases,
  settleCells,
} from "./computed-cell-claims.ts";
import { Wakeup } from "./wakeup.ts";

export interface ComputedCellWorkerOptions {
  store: Store;
  secrets: SecretBox;
  logger: Logger;
  now: () => number;
  /** Cells computed at once. */
  concurrency: number;
  providerTimeoutMs: number;
  providerMaxRetries: number;
  leaseMs: number;
  pollMs: number;
  api: ApiCallSettings;
}

/** The pipeline (provider SDKs) is loaded with the first cell, as the evaluation worker loads its own. */
let pipeline: Promise<typeof import("./compute-cell.ts")> | undefined;
const loadPipeline = () => {
  pipeline ??= import("./compute-cell.ts");
  return pipeline;
};

export class ComputedCellWorker {
  readonly id = `cells_${randomUUID()}`;
  /** Cells this worker settled (for tests and logs). */
  settledCells = 0;
  /** Cells being computed, by `rowId/columnId`: each holds a slot. */
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Cells claimed and waiting for a slot, with the plans of their claim's pass. */
  private ready: { cell: CellKey; plans: ColumnPlans }[] = [];
  /** Keys of the cells this worker holds, from their claim until settled or dropped. */
  private readonly held = new Set<string>();
  /** Cells computed and waiting for the loop to settle them (all of them in one transaction). */
  private finished: ComputedCell[] = [];
  private readonly abort = new AbortController();
  private readonly wakeup = new Wakeup();
  private running: Promise<void> | undefined;
  private stopping = false;

  constructor(private readonly options: ComputedCellWorkerOptions) {
    setMaxListeners(options.concurrency * 4 + 10, this.abort.signal);
  }

  start(): void {
    this.running ??= this.loop();
  }

  wake(): void {
    this.wakeup.wake();
  }

  /** Stops claiming, lets the cells in flight finish for up to `graceMs` and settles them, then aborts the rest and gives them back. */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.running;
    const grace = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref());
    await Promise.race([Promise.all(this.inFlight.values()), grace]);
    this.abort.abort(new Error("The worker is stopping"));
    await Promise.allSettled(this.inFlight.values());
    try {
      await this.settleFinished();
      await releaseCellLeases(this.options.store.db, this.id);
    } catch (error) {
      this.options.logger.error({ err: error }, "settling or giving back the computed cells in flight failed");
    }
  }

  private context(): CellClaimContext {
    const { store, now, leaseMs } = this.options;
    return { db: store.db, store, owner: this.id, now: now(), leaseMs };
  }

  private async loop(): Promise<void> {
    const { leaseMs, pollMs, concurrency, logger } = this.options;
    const heartbeat = setInterval(() => this.renew(), Math.max(1, Math.floor(leaseMs / 3)));
    heartbeat.unref();
    try {
      while (!this.stopping) {
        let progressed = false;
        try {
          progressed = (await this.settleFinished()) > 0;
          // Claimed ahead: the slots' next cells, besides those computing.
          const cells = await claimCells(this.context(), 2 * concurrency - this.inFlight.size - this.ready.length);
          const plans: ColumnPlans = new Map();
          for (const cell of cells) {
            const key = keyOf(cell);
            if (this.held.has(key)) continue; // Its lease ran out while this worker holds it: it is still ours.
            this.held.add(key);
            this.ready.push({ cell, plans });
            progressed = true;
          }
          this.fillSlots();
        } catch (error) {
          logger.error({ err: error }, "settling or claiming computed cells failed; retrying");
        }
        if (this.stopping) break;
        if (this.finished.length > 0) continue;
        if (this.inFlight.size + this.ready.length >= 2 * concurrency) await this.wakeup.wait();
        else if (!progressed) await this.wakeup.wait(pollMs);
      }
    } finally {
      clearInterval(heartbeat);
    }
  }

  /** Starts claimed cells in the free slots. */
  private fillSlots(): void {
    while (!this.stopping && this.inFlight.size < this.options.concurrency) {
      const next = this.ready.shift();
      if (!next) return;
      const key = keyOf(next.cell);
      this.inFlight.set(key, this.compute(next.cell, key, next.plans));
    }
  }

  /** Settles the cells computed since the last call, in one transaction. */
  private async settleFinished(): Promise<number> {
    if (this.finished.length === 0) return 0;
    const cells = this.finished.splice(0);
    try {
      this.settledCells += await settleCells(this.context(), cells);
    } catch (error) {
      // Their leases run out and a worker computes them again.
      this.options.logger.error({ err: error }, "settling computed cells failed; they will be computed again");
    }
    for (const { key } of cells) this.held.delete(keyOf(key));
    return cells.length;
  }

  /**
   * Computes a cell and hands its outcome to the loop, its slot taking the next claimed cell at once; a cell
   * not to be settled is dropped (given back when the worker stops, or left to its lease).
   */
  private async compute(cell: CellKey, key: string, plans: ColumnPlans): Promise<void> {
    const { store, secrets, providerTimeoutMs, providerMaxRetries, api, logger } = this.options;
    let outcome: CellOutcome | undefined;
    try {
      const { computeCell } = await loadPipeline();
      const deps = {
        db: store.db,
        secrets,
        call: { timeoutMs: providerTimeoutMs, maxRetries: providerMaxRetries },
        api,
      };
      outcome = await computeCell(deps, cell, this.abort.signal, plans);
    } catch (error) {
      // The cell stays claimed; its lease runs out and a worker computes it again.
      if (!this.abort.signal.aborted) {
        logger.error({ err: error, rowId: cell.rowId, columnId: cell.columnId }, "computing a cell failed");
      }
    }
    this.inFlight.delete(key);
    // Stopping: the cell is given back, not recorded as failed.
    if (outcome !== undefined && !this.abort.signal.aborted) this.finished.push({ key: cell, outcome });
    else this.held.delete(key);
    this.fillSlots();
    this.wake();
  }

  private renew(): void {
    if (this.inFlight.size === 0) return;
    renewCellLeases(this.options.store.db, this.id, this.options.now() + this.options.leaseMs).catch((error) =>
      this.options.logger.error({ err: error }, "renewing computed cell leases failed"),
    );
  }
}

const keyOf = (cell: { rowId: string; columnId: string }) => `${cell.rowId}/${cell.columnId}`;
