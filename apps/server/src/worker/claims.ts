/**
 * How workers share runs through the database. A worker claims a few rows (items) of a running run at a time
 * by writing its id and a lease expiry on them; it renews the lease while it works and marks an item done in
 * the transaction that records its result. An item whose lease expired (its worker died) can be claimed
 * again, so a run survives any worker. Concurrent claims skip each other's rows (`FOR UPDATE SKIP LOCKED`).
 */
import type { Kysely } from "kysely";
import type { IdGenerator } from "../ids.ts";
import { enqueueRunFinished } from "../services/webhooks/outbox.ts";
import type { Database } from "../store/schema.ts";
import type { Store } from "../store/store.ts";
import { variablesWithoutColumn } from "./render-prompt.ts";
import { type RunPlan, readRunPlan } from "./run-plan.ts";

export interface ClaimedItem {
  runId: string;
  rowId: string;
  /** JSON of the row's cells, keyed by column id. */
  values: string;
}

export interface ClaimContext {
  /** The store's handle, or the caller's transaction. */
  db: Kysely<Database>;
  store: Store;
  owner: string;
  now: number;
  leaseMs: number;
  newId: IdGenerator;
}

/** How many active runs one claim pass looks at, oldest first. */
const RUNS_PER_PASS = 20;

/**
 * Claims up to `limit` items, from the oldest runs first. Queued runs met on the way are started (or failed,
 * when the dataset lacks a column for a prompt variable, before any model call).
 */
export async function claimItems(context: ClaimContext, limit: number): Promise<ClaimedItem[]> {
  const { db } = context;
  const runs = await db
    .selectFrom("evaluationRuns")
    .select(["id", "status"])
    .where("status", "in", ["queued", "running"])
    .orderBy("createdAt")
    .orderBy("id")
    .limit(RUNS_PER_PASS)
    .execute();
  const claimed: ClaimedItem[] = [];
  for (const run of runs) {
    if (claimed.length >= limit) break;
    if (run.status === "queued" && !(await startRun(context, await readRunPlan(db, run.id)))) continue;
    claimed.push(...(await claimItemsOfRun(context, run.id, limit - claimed.length)));
  }
  return claimed;
}

/**
 * queued → running, or → failed for a missing variable column, or → completed when it has no rows (those two
 * with their `evaluation-run-finished` webhook event, in one transaction).
 */
async function startRun(context: ClaimContext, plan: RunPlan | undefined): Promise<boolean> {
  if (!plan) return false;
  const { db, store, now, newId } = context;
  const finish = (changes: Partial<Database["evaluationRuns"]>) =>
    store.transaction(db, async (trx) => {
      const finished = await trx
        .updateTable("evaluationRuns")
        .set(changes)
        .where("id", "=", plan.id)
        .where("status", "=", "queued")
        .executeTakeFirst();
      if (Number(finished.numUpdatedRows) === 1) await enqueueRunFinished(trx, { now, newId }, plan.id);
    });
  const missing = variablesWithoutColumn(
    plan.promptVersion.messages,
    plan.columns.map((column) => column.name),
  );
  const update = db.updateTable("evaluationRuns").where("id", "=", plan.id).where("status", "=", "queued");
  if (missing.length > 0) {
    const list = missing.map((name) => `{{${name}}}`).join(", ");
    await finish({
      status: "failed",
      error: `The dataset has no column for the prompt variable${missing.length > 1 ? "s" : ""} ${list}; add a column named after each variable.`,
      finishedAt: now,
      updatedAt: now,
    });
    return false;
  }
  if (plan.totalRows === 0) {
    await finish({ status: "completed", startedAt: now, finishedAt: now, updatedAt: now });
    return false;
  }
  const started = await update.set({ status: "running", startedAt: now, updatedAt: now }).executeTakeFirst();
  // Another worker may have started it first: it is running either way.
  return Number(started.numUpdatedRows) === 1 || (await readRunStatus(db, plan.id)) === "running";
}

async function readRunStatus(db: Kysely<Database>, runId: string) {
  const run = await db.selectFrom("evaluationRuns").select("status").where("id", "=", runId).executeTakeFirst();
  return run?.status;
}

async function claimItemsOfRun(context: ClaimContext, runId: string, limit: number): Promise<ClaimedItem[]> {
  const { store } = context;
  return store.transaction(context.db, async (trx) => {
    // A shared lock on the run: cancelEvaluation (which locks it for update) sees every claim made before it,
    // and no claim is made after it.
    const run = await store.sql.locks
      .forShare(trx.selectFrom("evaluationRuns").select("status").where("id", "=", runId))
      .executeTakeFirst();
    if (run?.status !== "running") return [];
    return claimRowsOfRun({ ...context, db: trx }, runId, limit);
  });
}

/**
 * Claims up to `limit` rows of a running run, in the caller's transaction, which holds a lock on the run.
 * Rows of a dead worker first (few: at most what workers hold at once), then pending rows in order: two
 * statements, so each walks its index (runId, state, …) instead of sorting every row of the run.
 */
export async function claimRowsOfRun(context: ClaimContext, runId: string, limit: number): Promise<ClaimedItem[]> {
  const { db, store, owner, now, leaseMs } = context;
  const claim = async (state: "claimed" | "pending", max: number) => {
    let claimable = db.selectFrom("evaluationRunItems").select("rowId").where("runId", "=", runId);
    claimable =
      state === "claimed"
        ? claimable.where("state", "=", "claimed").where("leaseExpiresAt", "<", now)
        : claimable.where("state", "=", "pending").orderBy("position");
    claimable = store.sql.locks.forUpdateSkipLocked(claimable.limit(max));
    return db
      .updateTable("evaluationRunItems")
      .set({ state: "claimed", leaseOwner: owner, leaseExpiresAt: now + leaseMs })
      .where("runId", "=", runId)
      .where("rowId", "in", claimable)
      .returning(["rowId", "values"])
      .execute();
  };
  if (limit <= 0) return [];
  const rows = await claim("claimed", limit);
  if (rows.length < limit) rows.push(...(await claim("pending", limit - rows.length)));
  return rows.map((row) => ({ runId, rowId: row.rowId, values: row.values }));
}

/** Extends the lease of every item `owner` holds. */
export async function renewLeases(db: Kysely<Database>, owner: string, expiresAt: number): Promise<void> {
  await db
    .updateTable("evaluationRunItems")
    .set({ leaseExpiresAt: expiresAt })
    .where("leaseOwner", "=", owner)
    .where("state", "=", "claimed")
    .execute();
}

/** Gives back items `owner` could not finish (a worker stopping), so another worker takes them at once. */
export async function releaseLeases(db: Kysely<Database>, owner: string, items: readonly ClaimedItem[]): Promise<void> {
  for (const item of items) {
    await db
      .updateTable("evaluationRunItems")
      .set({ state: "pending", leaseOwner: null, leaseExpiresAt: null })
      .where("runId", "=", item.runId)
      .where("rowId", "=", item.rowId)
      .where("leaseOwner", "=", owner)
      .where("state", "=", "claimed")
      .execute();
  }
}

/**
 * `cancelling` runs whose in-flight rows are all gone (finished, or their worker died) become `cancelled`.
 * Normally the worker recording the last in-flight row does this; this sweep covers a worker that died.
 */
export async function settleCancellingRuns(db: Kysely<Database>, now: number): Promise<void> {
  await db
    .updateTable("evaluationRuns")
    .set({ status: "cancelled", finishedAt: now, updatedAt: now })
    .where("status", "=", "cancelling")
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom("evaluationRunItems")
            .select("rowId")
            .whereRef("evaluationRunItems.runId", "=", "evaluationRuns.id")
            .where("state", "=", "claimed")
            .where("leaseExpiresAt", ">=", now),
        ),
      ),
    )
    .execute();
}
