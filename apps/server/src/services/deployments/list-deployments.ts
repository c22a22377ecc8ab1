import type { ServiceContext } from "../context.ts";
import { createdWithin } from "../created-range.ts";
import { requireEnvironmentOfProject } from "../deployment-environments/deployment-environment.ts";
import type { PathOf, QueryOf } from "../operation-input.ts";
import { paginate } from "../pagination.ts";
import { requirePrompt } from "../prompts/prompt.ts";
import { toDeployment } from "./deployment.ts";

/** The prompt's deployments (its published versions), optionally those of one environment of its project. */
export async function listDeployments(
  ctx: ServiceContext,
  { promptId }: PathOf<"listDeployments">,
  query: QueryOf<"listDeployments">,
) {
  const { deploymentEnvironmentId, createdAfter, createdBefore, ...page } = query;
  const prompt = await requirePrompt(ctx, promptId);
  let select = ctx.db
    .selectFrom("deployments")
    .selectAll()
    .where("promptId", "=", prompt.id)
    .where(createdWithin("deployments", { createdAfter, createdBefore }));
  if (deploymentEnvironmentId !== undefined) {
    await requireEnvironmentOfProject(ctx, prompt.projectId, deploymentEnvironmentId);
    select = select.where("deploymentEnvironmentId", "=", deploymentEnvironmentId);
  }
  return paginate(ctx, {
    operation: "listDeployments",
    filters: { promptId: prompt.id, deploymentEnvironmentId, createdAfter, createdBefore },
    page,
    table: "deployments",
    select,
    toItem: toDeployment,
  });
}
