import type { ServiceContext } from "../context.ts";
import { createdWithin } from "../created-range.ts";
import type { PathOf, QueryOf } from "../operation-input.ts";
import { paginate } from "../pagination.ts";
import { requireProject } from "../projects/project.ts";
import { toDeploymentEnvironment } from "./deployment-environment.ts";

export async function listDeploymentEnvironments(
  ctx: ServiceContext,
  { projectId }: PathOf<"listDeploymentEnvironments">,
  query: QueryOf<"listDeploymentEnvironments">,
) {
  const { createdAfter, createdBefore, ...page } = query;
  await requireProject(ctx, projectId);
  const select = ctx.db
    .selectFrom("deploymentEnvironments")
    .selectAll()
    .where("projectId", "=", projectId)
    .where(createdWithin("deploymentEnvironments", { createdAfter, createdBefore }));
  return paginate(ctx, {
    operation: "listDeploymentEnvironments",
    filters: { projectId, createdAfter, createdBefore },
    page,
    table: "deploymentEnvironments",
    select,
    toItem: toDeploymentEnvironment,
  });
}
