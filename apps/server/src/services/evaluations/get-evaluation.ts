import type { ServiceContext } from "../context.ts";
import type { PathOf } from "../operation-input.ts";
import { type EvaluationRun, requireRun, toEvaluationRun } from "./run.ts";

export async function getEvaluation(
  ctx: ServiceContext,
  { promptId, evaluationId }: PathOf<"getEvaluation">,
): Promise<EvaluationRun> {
  return toEvaluationRun(await requireRun(ctx, promptId, evaluationId));
}
