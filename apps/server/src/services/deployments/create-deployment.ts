import { inTransaction, type ServiceContext } from "../context.ts";
import { requireEnvironmentOfProject } from "../deployment-environments/deployment-environment.ts";
import { fromJson, toJson } from "../json.ts";
import type { BodyOf, PathOf, Unread } from "../operation-input.ts";
import { requirePrompt, type StoredDraft } from "../prompts/prompt.ts";
import { enqueueWebhookEvent } from "../webhooks/outbox.ts";
import { type Deployment, requireDeploymentOfPrompt, snapshotOf, toDeployment } from "./deployment.ts";

/**
 * Snapshots the prompt's current draft (or copies the snapshot of `sourceDeploymentId`, one of the prompt's
 * deployments: a rollback that leaves the draft alone) into a new deployment, the environment's latest one.
 * Read and insert share a transaction so the snapshot is the draft as it was when the deployment was made;
 * the `create-deployment` webhook event is written in it too.
 */
export async function createDeployment(
  ctx: ServiceContext,
  { promptId }: PathOf<"createDeployment">,
  body: BodyOf<"createDeployment">,
): Promise<Deployment> {
  const { deploymentEnvironmentId, sourceDeploymentId, ...unread } = body;
  unread satisfies Unread;
  const deployment = await inTransaction(ctx, async (tx) => {
    const prompt = await requirePrompt(tx, promptId);
    const environment = await requireEnvironmentOfProject(tx, prompt.projectId, deploymentEnvironmentId);
    const row = {
      id: tx.newId("deployment"),
      workspaceId: prompt.workspaceId,
      projectId: prompt.projectId,
      promptId: prompt.id,
      deploymentEnvironmentId: environment.id,
      snapshot:
        sourceDeploymentId === undefined
          ? toJson(snapshotOf(fromJson<StoredDraft>(prompt.draft)))
          : // Snapshots are immutable JSON: the source's is copied as stored.
            (await requireDeploymentOfPrompt(tx, prompt.id, sourceDeploymentId)).snapshot,
      createdByKeyId: tx.principal.keyId,
      createdAt: tx.now(),
    };
    await tx.db.insertInto("deployments").values(row).execute();
    // The webhook event commits with the deployment (the outbox, ADR 0011).
    const queued = await enqueueWebhookEvent(
      tx.db,
      { now: row.createdAt, newId: tx.newId },
      {
        workspaceId: row.workspaceId,
        projectId: row.projectId,
        type: "create-deployment",
        payload: {
          deploymentId: row.id,
          deploymentEnvironmentId: row.deploymentEnvironmentId,
          promptId: row.promptId,
          projectId: row.projectId,
        },
      },
    );
    return { deployment: toDeployment(row), queued };
  });
  if (deployment.queued > 0) ctx.webhooks.wake();
  return deployment.deployment;
}
