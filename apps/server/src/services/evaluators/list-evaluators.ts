import type { ServiceContext } from "../context.ts";
import { createdWithin } from "../created-range.ts";
import { type PageQuery, paginate } from "../pagination.ts";
import { requirePrompt } from "../prompts/prompt.ts";
import { toEvaluatorSummary } from "./evaluator.ts";

export interface ListEvaluatorsInput extends PageQuery {
  status?: "active" | "archived";
  createdAfter?: number;
  createdBefore?: number;
}

export async function listEvaluators(ctx: ServiceContext, promptId: string, input: ListEvaluatorsInput) {
  const prompt = await requirePrompt(ctx, promptId);
  let select = ctx.db
    .selectFrom("evaluators")
    .selectAll()
    .where("promptId", "=", prompt.id)
    .where(createdWithin("evaluators", input));
  if (input.status) select = select.where("status", "=", input.status);
  return paginate(ctx, {
    operation: "listEvaluators",
    query: { ...input, promptId },
    table: "evaluators",
    select,
    toItem: toEvaluatorSummary,
  });
}
