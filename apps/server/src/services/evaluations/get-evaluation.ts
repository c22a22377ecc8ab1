import type { ServiceContext } from "../context.ts";
import { type EvaluationRun, requireRun, toEvaluationRun } from "./run.ts";

export async function getEvaluation(ctx: ServiceContext, promptId: string, runId: string): Promise<EvaluationRun> {
  return toEvaluationRun(await requireRun(ctx, promptId, runId));
}
