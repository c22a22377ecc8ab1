/**
 * How workers share computed cells through the database, as they share evaluation rows (claims.ts): a worker
 * claims pending cells by writing its id and a lease expiry on them, renews the lease while it computes, and
 * settles a cell (writing its value into the row) only while it still holds it. A cell re-queued meanwhile lost
 * its lease, and the stale result is dropped. A cell waits while a cell of a lower stage of its row is pending
 * (a column it reads, queued by the same request).
 */
import { type Kysely, sql } from "kysely";
import { fromJson, toJson } from "../services/json.ts";
import type { Database } from "../store/schema.ts";
import type { Store } from "../store/store.ts";
import type { CellKey, CellOutcome } from "./compute-cell.ts";

/** The spec's bound on a cell's failure reason. */
const MAX_REASON_LENGTH = 2000;

export interface CellClaimContext {
  db: Kysely<Database>;
  store: Store;
  owner: string;
  now: number;
  leaseMs: number;
}

/** Claims up to `limit` cells that are due: pending, unleased (or their worker died), inputs settled. */
export async function claimCells(context: CellClaimContext, limit: number): Promise<CellKey[]> {
  if (limit <= 0) return [];
  const { store, owner, now, leaseMs } = context;
  // Every log write that queues spans wakes the workers: a plain read answers "nothing to do" without a
  // transaction (on SQLite, `begin immediate` would take the writer the log writes need).
  const waiting = await context.db
    .selectFrom("datasetComputedCells")
    .select("rowId")
    .where("status", "=", "pending")
    .where((eb) => eb.or([eb("leaseExpiresAt", "is", null), eb("leaseExpiresAt", "<", now)]))
    .limit(1)
    .executeTakeFirst();
  if (!waiting) return [];
  return store.transaction(context.db, async (trx) => {
    const due = trx
      .selectFrom("datasetComputedCells as cell")
      .select(["cell.rowId", "cell.columnId", "cell.datasetId", "cell.workspaceId"])
      .where("cell.status", "=", "pending")
      .where((eb) => eb.or([eb("cell.leaseExpiresAt", "is", null), eb("cell.leaseExpiresAt", "<", now)]))
      .where((eb) =>
        eb.or([
          eb("cell.stage", "=", 0),
          eb.not(
            eb.exists(
              eb
                .selectFrom("datasetComputedCells as input")
                .select("input.rowId")
                .whereRef("input.rowId", "=", "cell.rowId")
                .where("input.status", "=", "pending")
                .whereRef("input.stage", "<", "cell.stage"),
            ),
          ),
        ]),
      )
      .orderBy("cell.queuedAt")
      .orderBy("cell.rowId")
      .orderBy("cell.columnId")
      .limit(limit);
    const cells = await store.sql.locks.forUpdateSkipLocked(due).execute();
    if (cells.length > 0) {
      await trx
        .updateTable("datasetComputedCells")
        .set({ leaseOwner: owner, leaseExpiresAt: now + leaseMs })
        .where(cellKeyIn(cells))
        .execute();
    }
    return cells;
  });
}

/** The cells whose key is one of `keys` (a row value in a VALUES list, read through the primary key). */
const cellKeyIn = (keys: readonly { rowId: string; columnId: string }[]) =>
  sql<boolean>`(${sql.ref("rowId")}, ${sql.ref("columnId")}) in (values ${sql.join(
    keys.map((key) => sql`(${key.rowId}, ${key.columnId})`),
  )})`;

/** A cell computed and waiting to be settled. */
export interface ComputedCell {
  key: CellKey;
  outcome: CellOutcome;
}

/**
 * Settles cells this worker holds, in one transaction (one commit for the lot: a cell per transaction made a
 * column of 1,000 cells 10–55× slower than its provider): each `done` with its value written into its row, or
 * `failed` with the reason (the row keeps its value). A row's dataset is locked as every write to its rows
 * locks it, so no concurrent row edit is lost. A cell re-queued or deleted meanwhile is skipped (nothing is
 * written for it). Returns how many were settled.
 */
export async function settleCells(context: CellClaimContext, cells: readonly ComputedCell[]): Promise<number> {
  if (cells.length === 0) return 0;
  const { store, owner, now } = context;
  return store.transaction(context.db, async (trx) => {
    // The datasets first, as fetchDynamicColumns and row writes lock them, then the cells: one lock order.
    const written = cells.filter(({ outcome }) => outcome.value !== null);
    const datasetIds = [...new Set(written.map(({ key }) => key.datasetId))].sort();
    if (datasetIds.length > 0) {
      await store.sql.locks.forUpdate(trx.selectFrom("datasets").select("id").where("id", "in", datasetIds)).execute();
    }
    // The cells still held, locked, in one statement; then each row read and written once, whatever number
    // of its cells the lot settles.
    const held = await store.sql.locks
      .forUpdate(
        trx
          .selectFrom("datasetComputedCells")
          .select(["rowId", "columnId"])
          .where(cellKeyIn(cells.map(({ key }) => key)))
          .where("leaseOwner", "=", owner)
          .where("status", "=", "pending"),
      )
      .execute();
    const heldKeys = new Set(held.map((cell) => `${cell.rowId}/${cell.columnId}`));
    const settling = cells.filter(({ key }) => heldKeys.has(`${key.rowId}/${key.columnId}`));
    const rowIds = [...new Set(settling.filter(({ outcome }) => outcome.value !== null).map(({ key }) => key.rowId))];
    const rows =
      rowIds.length === 0
        ? []
        : await trx.selectFrom("datasetRows").select(["id", "values"]).where("id", "in", rowIds).execute();
    const values = new Map(rows.map((row) => [row.id, fromJson<Record<string, unknown>>(row.values)]));
    let settled = 0;
    for (const { key, outcome } of settling) {
      if (outcome.value !== null) {
        const rowValues = values.get(key.rowId);
        if (!rowValues) continue;
        rowValues[key.columnId] = outcome.value;
      }
      await trx
        .updateTable("datasetComputedCells")
        .set({
          status: outcome.value !== null ? "done" : "failed",
          reason: outcome.error?.slice(0, MAX_REASON_LENGTH) ?? null,
          latency: outcome.latency,
          cost: outcome.cost,
          leaseOwner: null,
          leaseExpiresAt: null,
          updatedAt: now,
        })
        .where("rowId", "=", key.rowId)
        .where("columnId", "=", key.columnId)
        .execute();
      settled += 1;
    }
    for (const rowId of rowIds) {
      const rowValues = values.get(rowId);
      if (!rowValues) continue;
      await trx
        .updateTable("datasetRows")
        .set({ values: toJson(rowValues), updatedAt: now })
        .where("id", "=", rowId)
        .execute();
    }
    return settled;
  });
}

/** Extends the lease of every cell `owner` holds. */
export async function renewCellLeases(db: Kysely<Database>, owner: string, expiresAt: number): Promise<void> {
  await db
    .updateTable("datasetComputedCells")
    .set({ leaseExpiresAt: expiresAt })
    .where("leaseOwner", "=", owner)
    .where("status", "=", "pending")
    .execute();
}

/** Gives back the cells `owner` holds (a worker stopping), so another worker takes them at once. */
export async function releaseCellLeases(db: Kysely<Database>, owner: string): Promise<void> {
  await db
    .updateTable("datasetComputedCells")
    .set({ leaseOwner: null, leaseExpiresAt: null })
    .where("leaseOwner", "=", owner)
    .where("status", "=", "pending")
    .execute();
}
