/**
 * Records a row's result and everything it changes in the same transaction: the result (at most one per row of
 * a run, whichever worker gets there first), the item marked done, the run's progress and metrics, and the
 * run's end when this was its last row (`completed`) or its last in-flight row after a cancel (`cancelled`).
 * A client therefore never reads counters that disagree with the results.
 *
 * Results that finish while a transaction commits are recorded together in the next one (group commit): with
 * 20 rows in flight, one commit per row would make the database's flush, not the model, the bottleneck.
 */
import type { Kysely, Transaction } from "kysely";
import type { IdGenerator } from "../ids.ts";
import type { Database } from "../store/schema.ts";

export type ResultValues = Pick<
  Database["evaluationResults"],
  "grade" | "score" | "reason" | "output" | "error" | "cost" | "latency" | "tokenCount"
>;

interface Pending {
  item: { runId: string; rowId: string };
  result: ResultValues;
  settle(error?: unknown): void;
}

export class ResultWriter {
  private queue: Pending[] = [];
  private flushing = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: { now: () => number; newId: IdGenerator },
  ) {}

  /** Resolves once the result is committed. */
  record(item: { runId: string; rowId: string }, result: ResultValues): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, result, settle: (error) => (error === undefined ? resolve() : reject(error)) });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      try {
        await this.db.transaction().execute(async (trx) => {
          for (const pending of batch) await recordInTransaction(trx, pending.item, pending.result, this.now());
        });
        for (const pending of batch) pending.settle();
      } catch {
        // One bad result (its run deleted meanwhile) must not sink the others: record them one by one.
        for (const pending of batch) {
          try {
            await this.db
              .transaction()
              .execute((trx) => recordInTransaction(trx, pending.item, pending.result, this.now()));
            pending.settle();
          } catch (error) {
            pending.settle(error);
          }
        }
      }
    }
    this.flushing = false;
  }

  private now() {
    return { now: this.clock.now(), newId: this.clock.newId };
  }
}

async function recordInTransaction(
  trx: Transaction<Database>,
  item: { runId: string; rowId: string },
  result: ResultValues,
  clock: { now: number; newId: IdGenerator },
): Promise<void> {
  const { now } = clock;
  const inserted = await trx
    .insertInto("evaluationResults")
    .values({ id: clock.newId("evaluationResult"), runId: item.runId, rowId: item.rowId, ...result, createdAt: now })
    .onConflict((oc) => oc.columns(["runId", "rowId"]).doNothing())
    .executeTakeFirst();
  await trx
    .updateTable("evaluationRunItems")
    .set({ state: "done", leaseOwner: null, leaseExpiresAt: null })
    .where("runId", "=", item.runId)
    .where("rowId", "=", item.rowId)
    .execute();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return;

  const failed = result.error !== null;
  const run = await trx
    .updateTable("evaluationRuns")
    .set((eb) => ({
      completedRows: eb("completedRows", "+", failed ? 0 : 1),
      failedRows: eb("failedRows", "+", failed ? 1 : 0),
      passRuns: eb("passRuns", "+", result.grade === "pass" ? 1 : 0),
      failRuns: eb("failRuns", "+", result.grade === "fail" ? 1 : 0),
      unknownRuns: eb("unknownRuns", "+", result.grade === "unknown" ? 1 : 0),
      totalCost: eb("totalCost", "+", result.cost),
      totalLatency: eb("totalLatency", "+", result.latency),
      totalTokenCount: eb("totalTokenCount", "+", result.tokenCount),
      updatedAt: now,
    }))
    .where("id", "=", item.runId)
    .returning(["status", "completedRows", "failedRows", "totalRows"])
    .executeTakeFirst();
  if (!run) return;

  if (run.status === "running" && run.completedRows + run.failedRows >= run.totalRows) {
    await trx
      .updateTable("evaluationRuns")
      .set({ status: "completed", finishedAt: now, updatedAt: now })
      .where("id", "=", item.runId)
      .execute();
  } else if (run.status === "cancelling") {
    const inFlight = await trx
      .selectFrom("evaluationRunItems")
      .select("rowId")
      .where("runId", "=", item.runId)
      .where("state", "=", "claimed")
      .where("leaseExpiresAt", ">=", now)
      .limit(1)
      .executeTakeFirst();
    if (!inFlight) {
      await trx
        .updateTable("evaluationRuns")
        .set({ status: "cancelled", finishedAt: now, updatedAt: now })
        .where("id", "=", item.runId)
        .execute();
    }
  }
}
