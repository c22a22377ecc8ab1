import type { ServiceContext } from "../context.ts";
import { createdWithin } from "../created-range.ts";
import { type PageQuery, paginate } from "../pagination.ts";
import { requirePrompt } from "../prompts/prompt.ts";
import { toDeployment } from "./deployment.ts";
import { requireEnvironmentOfProject } from "./environment.ts";

export interface ListDeploymentsInput extends PageQuery {
  deploymentEnvironmentId?: string;
  createdAfter?: number;
  createdBefore?: number;
}

/** The prompt's deployments (its published versions), optionally those of one environment of its project. */
export async function listDeployments(ctx: ServiceContext, promptId: string, input: ListDeploymentsInput) {
  const prompt = await requirePrompt(ctx, promptId);
  let select = ctx.db
    .selectFrom("deployments")
    .selectAll()
    .where("promptId", "=", prompt.id)
    .where(createdWithin("deployments", input));
  if (input.deploymentEnvironmentId !== undefined) {
    await requireEnvironmentOfProject(ctx, prompt.projectId, input.deploymentEnvironmentId);
    select = select.where("deploymentEnvironmentId", "=", input.deploymentEnvironmentId);
  }
  return paginate(ctx, {
    operation: "listDeployments",
    query: { ...input, promptId: prompt.id },
    table: "deployments",
    select,
    toItem: toDeployment,
  });
}
