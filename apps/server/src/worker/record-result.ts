/**
 * Records rows' results and everything they change in one transaction: each result (at most one per row of a
 * run, whichever worker gets there first), its item marked done, the run's progress and metrics, and the run's
 * end when this was its last row (`completed`) or its last in-flight row after a cancel (`cancelled`). A client
 * therefore never reads counters that disagree with the results.
 *
 * The same transaction claims the rows that replace them (one commit per finished row, not two: the database's
 * flush, not the model, would otherwise bound a worker with many rows in flight). It touches one run only, and
 * locks that run first, so transactions of several workers never wait on each other in a cycle.
 */
import type { Kysely } from "kysely";
import type { IdGenerator } from "../ids.ts";
import { enqueueRunFinished } from "../services/webhooks/outbox.ts";
import type { Database } from "../store/schema.ts";
import type { Store } from "../store/store.ts";
import { type ClaimedItem, claimRowsOfRun } from "./claims.ts";

export type ResultValues = Pick<
  Database["evaluationResults"],
  "grade" | "score" | "reason" | "output" | "error" | "cost" | "latency" | "tokenCount"
>;

export interface FinishedRow {
  item: ClaimedItem;
  result: ResultValues;
}

export interface RecordContext {
  /** The store's handle, or the caller's transaction. */
  db: Kysely<Database>;
  store: Store;
  owner: string;
  now: number;
  leaseMs: number;
  newId: IdGenerator;
}

/** Records `finished` (rows of run `runId`) and, while the run is still running, claims up to `claim` more of its rows. */
export function recordAndClaim(
  context: RecordContext,
  runId: string,
  finished: readonly FinishedRow[],
  claim: number,
): Promise<ClaimedItem[]> {
  const { store } = context;
  return store.transaction(context.db, async (trx) => {
    const lock = store.sql.locks.forUpdate(trx.selectFrom("evaluationRuns").select("id").where("id", "=", runId));
    // A run deleted with its prompt meanwhile: its rows and results went with it, nothing is left to record.
    if (!(await lock.executeTakeFirst())) return [];
    for (const { item, result } of finished) {
      await recordInTransaction(trx, item, result, { now: context.now, newId: context.newId });
    }
    if (claim <= 0) return [];
    const run = await trx.selectFrom("evaluationRuns").select("status").where("id", "=", runId).executeTakeFirst();
    return run?.status === "running" ? claimRowsOfRun({ ...context, db: trx }, runId, claim) : [];
  });
}

async function recordInTransaction(
  trx: Kysely<Database>,
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
    await enqueueRunFinished(trx, clock, item.runId);
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
