import type { schemas } from "@pharos/contract";
import { requireProject } from "../access.ts";
import { inTransaction, type ServiceContext } from "../context.ts";
import { toJson } from "../json.ts";
import { type Project, toProject } from "./project.ts";

export function updateProject(
  ctx: ServiceContext,
  projectId: string,
  input: schemas.UpdateProjectRequest,
): Promise<Project> {
  return inTransaction(ctx, async (tx) => {
    const project = await requireProject(tx, projectId);
    const changes = {
      ...(input.title !== undefined && { title: input.title }),
      ...(input.icon !== undefined && { icon: toJson(input.icon) }),
      updatedAt: tx.now(),
    };
    await tx.db.updateTable("projects").set(changes).where("id", "=", project.id).execute();
    return toProject({ ...project, ...changes });
  });
}
