import type { ServiceContext } from "../context.ts";
import { createdWithin } from "../created-range.ts";
import type { QueryOf } from "../operation-input.ts";
import { paginate } from "../pagination.ts";
import { requireProject } from "../projects/project.ts";
import { toDatasetSummary } from "./dataset.ts";

/** The project's datasets, without their columns. */
export async function listDatasets(ctx: ServiceContext, query: QueryOf<"listDatasets">) {
  const { projectId, createdAfter, createdBefore, ...page } = query;
  await requireProject(ctx, projectId);
  const select = ctx.db
    .selectFrom("datasets")
    .selectAll()
    .where("projectId", "=", projectId)
    .where(createdWithin("datasets", { createdAfter, createdBefore }));
  return paginate(ctx, {
    operation: "listDatasets",
    filters: { projectId, createdAfter, createdBefore },
    page,
    table: "datasets",
    select,
    toItem: toDatasetSummary,
  });
}
