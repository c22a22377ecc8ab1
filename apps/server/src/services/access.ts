/** Resolving ids within the caller's workspace: another workspace's resource is missing (404), an allowed
 * workspace's project outside the key's restriction is forbidden (403). */
import { mayAccessProject } from "../auth/principal.ts";
import { forbidden, notFound } from "../errors.ts";
import type { ServiceContext } from "./context.ts";

export function assertProjectAccess(ctx: ServiceContext, projectId: string): void {
  if (!mayAccessProject(ctx.principal, projectId)) {
    throw forbidden("This API key is restricted to other projects.");
  }
}

/** The project row, if it is in the caller's workspace and the key may use it. */
export async function requireProject(ctx: ServiceContext, projectId: string) {
  const project = await ctx.db
    .selectFrom("projects")
    .selectAll()
    .where("id", "=", projectId)
    .where("workspaceId", "=", ctx.principal.workspaceId)
    .executeTakeFirst();
  if (!project) throw notFound("Project");
  assertProjectAccess(ctx, project.id);
  return project;
}
