import { failIfInvalid } from "../../errors.ts";
import { inTransaction, type ServiceContext } from "../context.ts";
import { toJson } from "../json.ts";
import { checkMaskingRules } from "../masking/masking-rules.ts";
import type { BodyOf, PathOf, Unread } from "../operation-input.ts";
import { type Project, requireProject, toProject } from "./project.ts";

export async function updateProject(
  ctx: ServiceContext,
  { projectId }: PathOf<"updateProject">,
  body: BodyOf<"updateProject">,
): Promise<Project> {
  const { title, icon, maskingRules, retentionDays, ...unread } = body;
  unread satisfies Unread;
  // Every rule is checked before anything is saved (the schema bounds retentionDays to 1..3650 days).
  // Custom patterns are also timed on probe texts here (masking-rules.ts): a rule that runs too long is refused.
  if (maskingRules !== undefined) failIfInvalid(await checkMaskingRules(maskingRules, "maskingRules"));
  return inTransaction(ctx, async (tx) => {
    const project = await requireProject(tx, projectId);
    const changes = {
      ...(title !== undefined && { title }),
      ...(icon !== undefined && { icon: toJson(icon) }),
      ...(maskingRules !== undefined && { maskingRules: toJson(maskingRules) }),
      ...(retentionDays !== undefined && { retentionDays }),
      updatedAt: tx.now(),
    };
    await tx.db.updateTable("projects").set(changes).where("id", "=", project.id).execute();
    return toProject({ ...project, ...changes });
  });
}
