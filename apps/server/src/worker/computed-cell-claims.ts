/**
 * How workers share computed cells through the database, as they share evaluation rows (claims.ts): a worker
 * claims pending cells by writing its id and a lease expiry on them, renews the lease while it computes, and
 * settles a cell (writing its value into the row) only while it still holds it. A cell re-queued meanwhile lost
 * its lease, and the stale result is dropped. A cell waits while a cell of a lower stage of its row is pending
 * (a column it reads, queued by the same request).
 */
import type { Kysely } from "kysely";
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
    for (const cell of cells) {
      await trx
        .updateTable("datasetComputedCells")
        .set({ leaseOwner: owner, leaseExpiresAt: now + leaseMs })
        .where("rowId", "=", cell.rowId)
        .where("columnId", "=", cell.columnId)
        .execute();
    }
    return cells;
  });
}

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
    let settled = 0;
    for (const { key, outcome } of cells) {
      const held = await store.sql.locks
        .forUpdate(
          trx
            .selectFrom("datasetComputedCells")
            .select("rowId")
            .where("rowId", "=", key.rowId)
            .where("columnId", "=", key.columnId)
            .where("leaseOwner", "=", owner)
            .where("status", "=", "pending"),
        )
        .executeTakeFirst();
      if (!held) continue;
      if (outcome.value !== null) {
        const row = await trx.selectFrom("datasetRows").select("values").where("id", "=", key.rowId).executeTakeFirst();
        if (!row) continue;
        const values = { ...fromJson<Record<string, unknown>>(row.values), [key.columnId]: outcome.value };
        await trx
          .updateTable("datasetRows")
          .set({ values: toJson(values), updatedAt: now })
          .where("id", "=", key.rowId)
          .execute();
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
