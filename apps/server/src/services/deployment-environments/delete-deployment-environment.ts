import { conflict } from "../../errors.ts";
import { inTransaction, type ServiceContext } from "../context.ts";
import type { PathOf } from "../operation-input.ts";
import { requireProject } from "../projects/project.ts";
import { requireEnvironmentOfProject } from "./deployment-environment.ts";

/**
 * Deletes an environment that holds no deployments; one that does is 409. Deployments are the record of what
 * ran (spans, metrics and webhook deliveries name them), so they are never deleted as a side effect, although
 * the foreign key would cascade. The environment row is locked first: a deployment being inserted into it
 * holds a key-share lock on that row (its foreign key check), so the two serialise and the count below sees
 * every committed deployment.
 */
export function deleteDeploymentEnvironment(
  ctx: ServiceContext,
  { projectId, environmentId }: PathOf<"deleteDeploymentEnvironment">,
): Promise<void> {
  return inTransaction(ctx, async (tx) => {
    await requireProject(tx, projectId);
    const environment = await requireEnvironmentOfProject(tx, projectId, environmentId, { forUpdate: true });
    const deployment = await tx.db
      .selectFrom("deployments")
      .select("id")
      .where("deploymentEnvironmentId", "=", environment.id)
      .limit(1)
      .executeTakeFirst();
    if (deployment) {
      throw conflict(
        `The deployment environment "${environment.name}" holds deployments; it can be deleted only when it holds none.`,
      );
    }
    await tx.db.deleteFrom("deploymentEnvironments").where("id", "=", environment.id).execute();
  });
}
