import type { ServiceContext } from "../context.ts";
import { createdWithin } from "../created-range.ts";
import type { PathOf, QueryOf } from "../operation-input.ts";
import { paginate } from "../pagination.ts";
import { requirePrompt } from "../prompts/prompt.ts";
import { toEvaluationRun } from "./run.ts";

/** The prompt's runs; `createdAt` is the run's `timeline.submittedAt`. */
export async function listEvaluations(
  ctx: ServiceContext,
  { promptId }: PathOf<"listEvaluations">,
  query: QueryOf<"listEvaluations">,
) {
  const { status, evaluatorId, datasetId, createdAfter, createdBefore, ...page } = query;
  const prompt = await requirePrompt(ctx, promptId);
  let select = ctx.db
    .selectFrom("evaluationRuns")
    .selectAll()
    .where("promptId", "=", prompt.id)
    .where(createdWithin("evaluationRuns", { createdAfter, createdBefore }));
  if (status !== undefined) select = select.where("status", "=", status);
  if (evaluatorId !== undefined) select = select.where("evaluatorId", "=", evaluatorId);
  if (datasetId !== undefined) select = select.where("datasetId", "=", datasetId);
  return paginate(ctx, {
    operation: "listEvaluations",
    filters: { promptId, status, evaluatorId, datasetId, createdAfter, createdBefore },
    page,
    table: "evaluationRuns",
    select,
    toItem: toEvaluationRun,
  });
}
