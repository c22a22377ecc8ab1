import type { ServiceContext } from "../context.ts";
import { createdWithin } from "../created-range.ts";
import type { PathOf, QueryOf } from "../operation-input.ts";
import { paginate } from "../pagination.ts";
import { requireProject } from "../projects/project.ts";
import { toScoreConfig } from "./score-config.ts";

export async function listScoreConfigs(
  ctx: ServiceContext,
  { projectId }: PathOf<"listScoreConfigs">,
  query: QueryOf<"listScoreConfigs">,
) {
  const { createdAfter, createdBefore, ...page } = query;
  await requireProject(ctx, projectId);
  const select = ctx.db
    .selectFrom("scoreConfigs")
    .selectAll()
    .where("projectId", "=", projectId)
    .where(createdWithin("scoreConfigs", { createdAfter, createdBefore }));
  return paginate(ctx, {
    operation: "listScoreConfigs",
    filters: { projectId, createdAfter, createdBefore },
    page,
    table: "scoreConfigs",
    select,
    toItem: toScoreConfig,
  });
}
