import type { ServiceContext } from "../context.ts";
import type { PathOf } from "../operation-input.ts";
import { type Evaluator, requireEvaluator, toEvaluator } from "./evaluator.ts";

export async function getEvaluator(
  ctx: ServiceContext,
  { promptId, evaluatorId }: PathOf<"getEvaluator">,
): Promise<Evaluator> {
  return toEvaluator(await requireEvaluator(ctx, promptId, evaluatorId));
}
