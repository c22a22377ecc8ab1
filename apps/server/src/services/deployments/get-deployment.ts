import { invalid, notFound } from "../../errors.ts";
import type { ServiceContext } from "../context.ts";
import { requirePrompt } from "../prompts/prompt.ts";
import { type Deployment, toDeployment } from "./deployment.ts";
import { requireEnvironmentOfProject } from "./environment.ts";

export interface GetDeploymentInput {
  promptId: string;
  /** A deployment id, or `latest` / `current` (synonyms). */
  deploymentId: string;
  deploymentEnvironmentId?: string;
}

const isLatest = (deploymentId: string) => deploymentId === "latest" || deploymentId === "current";

/**
 * The run-time read: a deployment of the prompt by id (in `deploymentEnvironmentId` when given), or the most
 * recently created deployment of the prompt in `deploymentEnvironmentId`.
 */
export async function getDeployment(ctx: ServiceContext, input: GetDeploymentInput): Promise<Deployment> {
  const latest = isLatest(input.deploymentId);
  if (latest && input.deploymentEnvironmentId === undefined) {
    throw invalid(
      "query.deploymentEnvironmentId",
      `required when deploymentId is ${input.deploymentId}: the latest deployment is per environment`,
    );
  }
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
