import type { schemas } from "@pharos/contract";
import { inTransaction, type ServiceContext } from "../context.ts";
import { toJson } from "../json.ts";
import { type DatasetSummary, requireDataset, toDatasetSummary } from "./dataset.ts";

/** Changes title, description or icon; answers the dataset without its columns. */
export function updateDataset(
  ctx: ServiceContext,
  datasetId: string,
  input: schemas.UpdateDatasetRequest,
): Promise<DatasetSummary> {
  return inTransaction(ctx, async (tx) => {
    const dataset = await requireDataset(tx, datasetId, { forUpdate: true });
    const changes = {
      ...(input.title !== undefined && { title: input.title }),
      ...(input.description !== undefined && { description: input.description }),
      ...(input.icon !== undefined && { icon: toJson(input.icon) }),
      updatedAt: tx.now(),
    };
    await tx.db.updateTable("datasets").set(changes).where("id", "=", dataset.id).execute();
    return toDatasetSummary({ ...dataset, ...changes });
  });
}
