import type { ServiceContext } from "../context.ts";
import { toJson } from "../json.ts";
import type { BodyOf, Unread } from "../operation-input.ts";
import { DEFAULT_PROJECT_ICON, type Project, toProject } from "./project.ts";

export async function createProject(ctx: ServiceContext, body: BodyOf<"createProject">): Promise<Project> {
  const { title, icon, ...unread } = body;
  unread satisfies Unread;
  const now = ctx.now();
  const row = {
    id: ctx.newId("project"),
    workspaceId: ctx.principal.workspaceId,
    title,
    icon: toJson(icon ?? DEFAULT_PROJECT_ICON),
    maskingRules: "[]",
    retentionDays: null,
    createdAt: now,
    updatedAt: now,
  };
  await ctx.db.insertInto("projects").values(row).execute();
  return toProject(row);
}
