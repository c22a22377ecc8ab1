import { inTransaction, type ServiceContext } from "../context.ts";
import { toJson } from "../json.ts";
import type { BodyOf, PathOf, Unread } from "../operation-input.ts";
import { type DatasetSummary, requireDataset, toDatasetSummary } from "./dataset.ts";

/** Changes title, description or icon; answers the dataset without its columns. */
export function updateDataset(
  ctx: ServiceContext,
  { datasetId }: PathOf<"updateDataset">,
  body: BodyOf<"updateDataset">,
): Promise<DatasetSummary> {
  const { title, description, icon, ...unread } = body;
  unread satisfies Unread;
  return inTransaction(ctx, async (tx) => {
    const dataset = await requireDataset(tx, datasetId, { forUpdate: true });
    const changes = {
      ...(title !== undefined && { title }),
      ...(description !== undefined && { description }),
      ...(icon !== undefined && { icon: toJson(icon) }),
      updatedAt: tx.now(),
    };
    await tx.db.updateTable("datasets").set(changes).where("id", "=", dataset.id).execute();
    return toDatasetSummary({ ...dataset, ...changes });
  });
}
