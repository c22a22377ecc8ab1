import type { schemas } from "@pharos/contract";
import { conflict } from "../../errors.ts";
import { requireProject } from "../access.ts";
import type { ServiceContext } from "../context.ts";
import { type DeploymentEnvironment, toDeploymentEnvironment } from "./deployment-environment.ts";

export async function createDeploymentEnvironment(
  ctx: ServiceContext,
  projectId: string,
  input: schemas.CreateDeploymentEnvironmentRequest,
): Promise<DeploymentEnvironment> {
  await requireProject(ctx, projectId);
  const now = ctx.now();
  const row = {
    id: ctx.newId("environment"),
    workspaceId: ctx.principal.workspaceId,
    projectId,
    name: input.name,
    nameKey: input.name.toLowerCase(),
    createdAt: now,
    updatedAt: now,
  };
  try {
    await ctx.db.insertInto("deploymentEnvironments").values(row).execute();
  } catch (error) {
    if (ctx.store.isUniqueViolation(error)) {
      throw conflict(`The project already has a deployment environment named "${input.name}".`);
    }
    throw error;
  }
  return toDeploymentEnvironment(row);
}
