import type { ServiceContext } from "../context.ts";
import { createdWithin } from "../created-range.ts";
import type { PathOf, QueryOf } from "../operation-input.ts";
import { paginate } from "../pagination.ts";
import { requirePrompt } from "../prompts/prompt.ts";
import { toEvaluatorSummary } from "./evaluator.ts";

export async function listEvaluators(
  ctx: ServiceContext,
  { promptId }: PathOf<"listEvaluators">,
  query: QueryOf<"listEvaluators">,
) {
  const { status, createdAfter, createdBefore, ...page } = query;
  const prompt = await requirePrompt(ctx, promptId);
  let select = ctx.db
    .selectFrom("evaluators")
    .selectAll()
    .where("promptId", "=", prompt.id)
    .where(createdWithin("evaluators", { createdAfter, createdBefore }));
  if (status) select = select.where("status", "=", status);
  return paginate(ctx, {
    operation: "listEvaluators",
    filters: { promptId, status, createdAfter, createdBefore },
    page,
    table: "evaluators",
    select,
    toItem: toEvaluatorSummary,
  });
}
