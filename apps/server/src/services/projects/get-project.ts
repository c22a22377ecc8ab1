import type { ServiceContext } from "../context.ts";
import type { PathOf } from "../operation-input.ts";
import { type Project, requireProject, toProject } from "./project.ts";

export async function getProject(ctx: ServiceContext, { projectId }: PathOf<"getProject">): Promise<Project> {
  return toProject(await requireProject(ctx, projectId));
}
