import { requireProject } from "../access.ts";
import type { ServiceContext } from "../context.ts";
import { createdWithin } from "../created-range.ts";
import { type PageQuery, paginate } from "../pagination.ts";
import { toDeploymentEnvironment } from "./deployment-environment.ts";

export interface ListDeploymentEnvironmentsInput extends PageQuery {
  createdAfter?: number;
  createdBefore?: number;
}

export async function listDeploymentEnvironments(
  ctx: ServiceContext,
  projectId: string,
  input: ListDeploymentEnvironmentsInput,
) {
  await requireProject(ctx, projectId);
  const select = ctx.db
    .selectFrom("deploymentEnvironments")
    .selectAll()
    .where("projectId", "=", projectId)
    .where(createdWithin("deploymentEnvironments", input));
  return paginate(ctx, {
    operation: "listDeploymentEnvironments",
    query: { ...input, projectId },
    table: "deploymentEnvironments",
    select,
    toItem: toDeploymentEnvironment,
  });
}
