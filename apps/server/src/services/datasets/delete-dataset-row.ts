import { notFound } from "../../errors.ts";
import { inTransaction, type ServiceContext } from "../context.ts";
import type { PathOf } from "../operation-input.ts";
import { requireDataset } from "./dataset.ts";

/** Deletes the row; rowCount drops by one in the same transaction. */
export function deleteDatasetRow(ctx: ServiceContext, { datasetId, rowId }: PathOf<"deleteDatasetRow">): Promise<void> {
  return inTransaction(ctx, async (tx) => {
    const dataset = await requireDataset(tx, datasetId, { forUpdate: true });
    const deleted = await tx.db
      .deleteFrom("datasetRows")
      .where("id", "=", rowId)
      .where("datasetId", "=", dataset.id)
      .executeTakeFirst();
    if (deleted.numDeletedRows === 0n) throw notFound("Row");
    await tx.db
      .updateTable("datasets")
      .set((eb) => ({ rowCount: eb("rowCount", "-", 1), updatedAt: tx.now() }))
      .where("id", "=", dataset.id)
      .execute();
  });
}
