import type { schemas } from "@pharos/contract";
import { requireProject } from "../access.ts";
import { inTransaction, type ServiceContext } from "../context.ts";
import { toJson } from "../json.ts";
import { insertColumns, prepareColumns } from "./column.ts";
import { type Dataset, DEFAULT_DATASET_ICON, toDataset } from "./dataset.ts";

/** A new dataset (no rows) with its initial columns, all in one transaction. */
export function createDataset(ctx: ServiceContext, input: schemas.CreateDatasetRequest): Promise<Dataset> {
  return inTransaction(ctx, async (tx) => {
    await requireProject(tx, input.projectId);
    const now = tx.now();
    const dataset = {
      id: tx.newId("dataset"),
      workspaceId: tx.principal.workspaceId,
      projectId: input.projectId,
      title: input.title,
      icon: toJson(input.icon ?? DEFAULT_DATASET_ICON),
      description: input.description ?? "",
      rowCount: 0,
      createdAt: now,
      updatedAt: now,
    };
    const columns = await prepareColumns(tx, {
      datasetId: dataset.id,
      projectId: dataset.projectId,
      existing: [],
      inputs: input.columns ?? [],
      now,
    });
    await tx.db.insertInto("datasets").values(dataset).execute();
    await insertColumns(tx, columns);
    return toDataset(dataset, columns);
  });
}
