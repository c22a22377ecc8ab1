import { inTransaction, type ServiceContext } from "../context.ts";
import { toJson } from "../json.ts";
import type { BodyOf, PathOf, Unread } from "../operation-input.ts";
import { type Project, requireProject, toProject } from "./project.ts";

export function updateProject(
  ctx: ServiceContext,
  { projectId }: PathOf<"updateProject">,
  body: BodyOf<"updateProject">,
): Promise<Project> {
  const { title, icon, ...unread } = body;
  unread satisfies Unread;
  return inTransaction(ctx, async (tx) => {
    const project = await requireProject(tx, projectId);
    const changes = {
      ...(title !== undefined && { title }),
      ...(icon !== undefined && { icon: toJson(icon) }),
      updatedAt: tx.now(),
    };
    await tx.db.updateTable("projects").set(changes).where("id", "=", project.id).execute();
    return toProject({ ...project, ...changes });
  });
}
