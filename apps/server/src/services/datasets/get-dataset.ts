import type { ServiceContext } from "../context.ts";
import type { PathOf } from "../operation-input.ts";
import { loadColumns } from "./column.ts";
import { type Dataset, requireDataset, toDataset } from "./dataset.ts";

export async function getDataset(ctx: ServiceContext, { datasetId }: PathOf<"getDataset">): Promise<Dataset> {
  const dataset = await requireDataset(ctx, datasetId);
  return toDataset(dataset, await loadColumns(ctx, dataset.id));
}
