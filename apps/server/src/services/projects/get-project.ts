import { requireProject } from "../access.ts";
import type { ServiceContext } from "../context.ts";
import { type Project, toProject } from "./project.ts";

export async function getProject(ctx: ServiceContext, projectId: string): Promise<Project> {
  return toProject(await requireProject(ctx, projectId));
}
