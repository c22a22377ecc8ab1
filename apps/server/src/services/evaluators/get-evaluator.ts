import type { ServiceContext } from "../context.ts";
import { type Evaluator, toEvaluator } from "./evaluator.ts";
import { requireEvaluator } from "./lookups.ts";

export async function getEvaluator(ctx: ServiceContext, promptId: string, evaluatorId: string): Promise<Evaluator> {
  return toEvaluator(await requireEvaluator(ctx, promptId, evaluatorId));
}
