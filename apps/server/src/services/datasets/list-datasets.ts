import { requireProject } from "../access.ts";
import type { ServiceContext } from "../context.ts";
import { createdWithin } from "../created-range.ts";
import { type PageQuery, paginate } from "../pagination.ts";
import { toDatasetSummary } from "./dataset.ts";

export interface ListDatasetsInput extends PageQuery {
  projectId: string;
  createdAfter?: number;
  createdBefore?: number;
}

/** The project's datasets, without their columns. */
export async function listDatasets(ctx: ServiceContext, input: ListDatasetsInput) {
  await requireProject(ctx, input.projectId);
  const select = ctx.db
    .selectFrom("datasets")
    .selectAll()
    .where("projectId", "=", input.projectId)
    .where(createdWithin("datasets", input));
  return paginate(ctx, {
    operation: "listDatasets",
    query: { ...input },
    table: "datasets",
    select,
    toItem: toDatasetSummary,
  });
}
