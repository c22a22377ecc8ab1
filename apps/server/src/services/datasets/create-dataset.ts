import { inTransaction, type ServiceContext } from "../context.ts";
import { toJson } from "../json.ts";
import type { BodyOf, Unread } from "../operation-input.ts";
import { requireProject } from "../projects/project.ts";
import { insertColumns, prepareColumns } from "./column.ts";
import { type Dataset, DEFAULT_DATASET_ICON, toDataset } from "./dataset.ts";

/** A new dataset (no rows) with its initial columns, all in one transaction. */
export function createDataset(ctx: ServiceContext, body: BodyOf<"createDataset">): Promise<Dataset> {
  const { projectId, title, description, icon, columns: initial, ...unread } = body;
  unread satisfies Unread;
  return inTransaction(ctx, async (tx) => {
    await requireProject(tx, projectId);
    const now = tx.now();
    const dataset = {
      id: tx.newId("dataset"),
      workspaceId: tx.principal.workspaceId,
      projectId,
      title,
      icon: toJson(icon ?? DEFAULT_DATASET_ICON),
      description: description ?? "",
      rowCount: 0,
      createdAt: now,
      updatedAt: now,
    };
    const columns = await prepareColumns(tx, {
      datasetId: dataset.id,
      projectId: dataset.projectId,
      existing: [],
      inputs: initial ?? [],
      now,
    });
    await tx.db.insertInto("datasets").values(dataset).execute();
    await insertColumns(tx, columns);
    return toDataset(dataset, columns);
  });
}
