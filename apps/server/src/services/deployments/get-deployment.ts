import { invalid, notFound } from "../../errors.ts";
import type { ServiceContext } from "../context.ts";
import { requireEnvironmentOfProject } from "../deployment-environments/deployment-environment.ts";
import type { QueryOf, Unread } from "../operation-input.ts";
import { assertProjectAccess } from "../projects/project.ts";
import { requirePrompt } from "../prompts/prompt.ts";
import { type Deployment, toDeployment } from "./deployment.ts";

/** What identifies the deployment: `deploymentId` is an id, or `latest` / `current` (synonyms). */
type DeploymentQuery = QueryOf<"getDeployment">;

const isLatest = (deploymentId: string) => deploymentId === "latest" || deploymentId === "current";

/**
 * The run-time read: a deployment of the prompt by id (in `deploymentEnvironmentId` when given), or the most
 * recently created deployment of the prompt in `deploymentEnvironmentId`. Applications poll it, so a found
 * deployment is served from the read cache until the prompt, its deployments or environments change.
 */
export async function getDeployment(ctx: ServiceContext, query: DeploymentQuery): Promise<Deployment> {
  const { promptId, deploymentId, deploymentEnvironmentId, ...unread } = query;
  unread satisfies Unread;
  const input = { promptId, deploymentId, deploymentEnvironmentId };
  const latest = isLatest(input.deploymentId);
  if (latest && input.deploymentEnvironmentId === undefined) {
    throw invalid(
      "query.deploymentEnvironmentId",
      `required when deploymentId is ${input.deploymentId}: the latest deployment is per environment`,
    );
  }
  const key = JSON.stringify(["deployment", input.promptId, input.deploymentId, input.deploymentEnvironmentId]);
  const found = await ctx.cache.get(key, async () => ({
    workspaceId: ctx.principal.workspaceId,
    deployment: await readDeployment(ctx, input, latest),
  }));
  // Cached by a caller of the workspace that holds it: a caller of another one is told what a read tells it.
  if (found.workspaceId !== ctx.principal.workspaceId) return readDeployment(ctx, input, latest);
  assertProjectAccess(ctx, found.deployment.projectId);
  return found.deployment;
}

async function readDeployment(ctx: ServiceContext, input: DeploymentQuery, latest: boolean): Promise<Deployment> {
  const prompt = await requirePrompt(ctx, input.promptId);
  let select = ctx.db.selectFrom("deployments").selectAll().where("promptId", "=", prompt.id);
  if (latest) {
    const environmentId = input.deploymentEnvironmentId as string;
    await requireEnvironmentOfProject(ctx, prompt.projectId, environmentId);
    select = select
      .where("deploymentEnvironmentId", "=", environmentId)
      .orderBy("createdAt", "desc")
      .orderBy("id", "desc")
      .limit(1);
  } else {
    select = select.where("id", "=", input.deploymentId);
    if (input.deploymentEnvironmentId !== undefined) {
      select = select.where("deploymentEnvironmentId", "=", input.deploymentEnvironmentId);
    }
  }
  const row = await select.executeTakeFirst();
  if (!row) throw notFound("Deployment");
  return toDeployment(row);
}
