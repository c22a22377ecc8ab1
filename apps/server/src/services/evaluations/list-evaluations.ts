import type { EvaluationRunStatus } from "../../store/schema.ts";
import type { ServiceContext } from "../context.ts";
import { createdWithin } from "../created-range.ts";
import { type PageQuery, paginate } from "../pagination.ts";
import { requirePrompt } from "../prompts/prompt.ts";
import { toEvaluationRun } from "./run.ts";

export interface ListEvaluationsInput extends PageQuery {
  status?: EvaluationRunStatus;
  evaluatorId?: string;
  datasetId?: string;
  createdAfter?: number;
  createdBefore?: number;
}

/** The prompt's runs; `createdAt` is the run's `timeline.submittedAt`. */
export async function listEvaluations(ctx: ServiceContext, promptId: string, input: ListEvaluationsInput) {
  const prompt = await requirePrompt(ctx, promptId);
  let select = ctx.db
    .selectFrom("evaluationRuns")
    .selectAll()
    .where("promptId", "=", prompt.id)
    .where(createdWithin("evaluationRuns", input));
  if (input.status !== undefined) select = select.where("status", "=", input.status);
  if (input.evaluatorId !== undefined) select = select.where("evaluatorId", "=", input.evaluatorId);
  if (input.datasetId !== undefined) select = select.where("datasetId", "=", input.datasetId);
  return paginate(ctx, {
    operation: "listEvaluations",
    query: { ...input, promptId },
    table: "evaluationRuns",
    select,
    toItem: toEvaluationRun,
  });
}
