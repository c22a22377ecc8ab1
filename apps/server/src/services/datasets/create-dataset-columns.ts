import type { schemas } from "@pharos/contract";
import { inTransaction, type ServiceContext } from "../context.ts";
import { type DatasetColumn, insertColumns, loadColumns, prepareColumns, toColumn } from "./column.ts";
import { requireDataset, touchDataset } from "./dataset.ts";

/** Appends columns (all or none); existing rows read `null` in them without being rewritten. */
export function createDatasetColumns(
  ctx: ServiceContext,
  datasetId: string,
  input: schemas.CreateDatasetColumnsRequest,
): Promise<DatasetColumn[]> {
  return inTransaction(ctx, async (tx) => {
    const dataset = await requireDataset(tx, datasetId, { forUpdate: true });
    const now = tx.now();
    const columns = await prepareColumns(tx, {
      datasetId: dataset.id,
      projectId: dataset.projectId,
      existing: await loadColumns(tx, dataset.id),
      inputs: input.columns,
      now,
    });
    await insertColumns(tx, columns);
    await touchDataset(tx, dataset.id, now);
    return columns.map(toColumn);
  });
}
