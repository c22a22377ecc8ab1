import { requireProject } from "../access.ts";
import type { ServiceContext } from "../context.ts";
import { createdWithin } from "../created-range.ts";
import { type PageQuery, paginate } from "../pagination.ts";
import { toPromptSummary } from "./prompt.ts";

export interface ListPromptsInput extends PageQuery {
  projectId: string;
  createdAfter?: number;
  createdBefore?: number;
}

/** The project's prompts as summaries. */
export async function listPrompts(ctx: ServiceContext, input: ListPromptsInput) {
  const project = await requireProject(ctx, input.projectId);
  const select = ctx.db
    .selectFrom("prompts")
    .selectAll()
    .where("projectId", "=", project.id)
    .where(createdWithin("prompts", input));
  return paginate(ctx, {
    operation: "listPrompts",
    query: { ...input },
    table: "prompts",
    select,
    toItem: toPromptSummary,
  });
}
