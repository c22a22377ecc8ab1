/** The deployment record: an immutable snapshot of a prompt's draft in one deployment environment. */
import type { schemas } from "@pharos/contract";
import { notFound } from "../../errors.ts";
import type { Database } from "../../store/schema.ts";
import type { ServiceContext } from "../context.ts";
import { fromJson } from "../json.ts";
import type { StoredDraft } from "../prompts/prompt.ts";
import { variableList } from "../prompts/template-variables.ts";

export type Deployment = schemas.Deployment;
export type PromptSnapshot = schemas.PromptSnapshot;

/**
 * The draft frozen for a deployment: `providerName`, `providerId` and `model` are left out where the draft has
 * null, `settings` is always written; variables become a list in order of first appearance.
 */
export function snapshotOf(draft: StoredDraft): PromptSnapshot {
  const { provider, providerId, model, settings } = draft.config;
  return {
    config: {
      ...(provider !== null && { providerName: provider }),
      ...(providerId !== null && { providerId }),
      ...(model !== null && { model }),
      settings,
    },
    messages: draft.messages,
    tools: draft.tools,
    variables: variableList(draft.messages),
  };
}

/** Deployments never change: `updatedAt` and `updatedByUserId` are their creation's. */
export function toDeployment(row: Database["deployments"]): Deployment {
  return {
    id: row.id,
    createdAt: row.createdAt,
    updatedAt: row.createdAt,
    createdByUserId: row.createdByKeyId,
    updatedByUserId: row.createdByKeyId,
    projectId: row.projectId,
    promptId: row.promptId,
    deploymentEnvironmentId: row.deploymentEnvironmentId,
    prompt: fromJson<PromptSnapshot>(row.snapshot),
  };
}

/** The deployment, which must be one of the prompt's (found by the caller in its workspace): else 404. */
export async function requireDeploymentOfPrompt(ctx: ServiceContext, promptId: string, deploymentId: string) {
  const deployment = await ctx.db
    .selectFrom("deployments")
    .selectAll()
    .where("id", "=", deploymentId)
    .where("promptId", "=", promptId)
    .executeTakeFirst();
  if (!deployment) throw notFound("Deployment");
  return deployment;
}
