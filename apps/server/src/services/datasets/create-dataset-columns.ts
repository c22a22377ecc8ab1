import { inTransaction, type ServiceContext } from "../context.ts";
import type { BodyOf, PathOf, Unread } from "../operation-input.ts";
import { type DatasetColumn, insertColumns, loadColumns, prepareColumns, toColumn } from "./column.ts";
import { requireDataset, touchDataset } from "./dataset.ts";

/** Appends columns (all or none); existing rows read `null` in them without being rewritten. */
export function createDatasetColumns(
  ctx: ServiceContext,
  { datasetId }: PathOf<"createDatasetColumns">,
  body: BodyOf<"createDatasetColumns">,
): Promise<DatasetColumn[]> {
  const { columns: inputs, ...unread } = body;
  unread satisfies Unread;
  return inTransaction(ctx, async (tx) => {
    const dataset = await requireDataset(tx, datasetId, { forUpdate: true });
    const now = tx.now();
    const columns = await prepareColumns(tx, {
      datasetId: dataset.id,
      projectId: dataset.projectId,
      existing: await loadColumns(tx, dataset.id),
      inputs,
      now,
    });
    await insertColumns(tx, columns);
    await touchDataset(tx, dataset.id, now);
    return columns.map(toColumn);
  });
}
