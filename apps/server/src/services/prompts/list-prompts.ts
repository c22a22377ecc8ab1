import type { ServiceContext } from "../context.ts";
import { createdWithin } from "../created-range.ts";
import type { QueryOf } from "../operation-input.ts";
import { paginate } from "../pagination.ts";
import { requireProject } from "../projects/project.ts";
import { toPromptSummary } from "./prompt.ts";

/** The project's prompts as summaries. */
export async function listPrompts(ctx: ServiceContext, query: QueryOf<"listPrompts">) {
  const { projectId, createdAfter, createdBefore, ...page } = query;
  const project = await requireProject(ctx, projectId);
  const select = ctx.db
    .selectFrom("prompts")
    .selectAll()
    .where("projectId", "=", project.id)
    .where(createdWithin("prompts", { createdAfter, createdBefore }));
  return paginate(ctx, {
    operation: "listPrompts",
    filters: { projectId, createdAfter, createdBefore },
    page,
    table: "prompts",
    select,
    toItem: toPromptSummary,
  });
}
