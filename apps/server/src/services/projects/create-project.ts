import type { schemas } from "@pharos/contract";
import type { ServiceContext } from "../context.ts";
import { toJson } from "../json.ts";
import { DEFAULT_PROJECT_ICON, type Project, toProject } from "./project.ts";

export async function createProject(ctx: ServiceContext, input: schemas.CreateProjectRequest): Promise<Project> {
  const now = ctx.now();
  const row = {
    id: ctx.newId("project"),
    workspaceId: ctx.principal.workspaceId,
    title: input.title,
    icon: toJson(input.icon ?? DEFAULT_PROJECT_ICON),
    createdAt: now,
    updatedAt: now,
  };
  await ctx.db.insertInto("projects").values(row).execute();
  return toProject(row);
}
