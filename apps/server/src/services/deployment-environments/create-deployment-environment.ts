import { conflict } from "../../errors.ts";
import type { ServiceContext } from "../context.ts";
import type { BodyOf, PathOf, Unread } from "../operation-input.ts";
import { requireProject } from "../projects/project.ts";
import { type DeploymentEnvironment, toDeploymentEnvironment } from "./deployment-environment.ts";

export async function createDeploymentEnvironment(
  ctx: ServiceContext,
  { projectId }: PathOf<"createDeploymentEnvironment">,
  body: BodyOf<"createDeploymentEnvironment">,
): Promise<DeploymentEnvironment> {
  const { name, ...unread } = body;
  unread satisfies Unread;
  await requireProject(ctx, projectId);
  const now = ctx.now();
  const row = {
    id: ctx.newId("environment"),
    workspaceId: ctx.principal.workspaceId,
    projectId,
    name,
    nameKey: name.toLowerCase(),
    createdAt: now,
    updatedAt: now,
  };
  try {
    await ctx.db.insertInto("deploymentEnvironments").values(row).execute();
  } catch (error) {
    if (ctx.store.isUniqueViolation(error)) {
      throw conflict(`The project already has a deployment environment named "${name}".`);
    }
    throw error;
  }
  return toDeploymentEnvironment(row);
}
