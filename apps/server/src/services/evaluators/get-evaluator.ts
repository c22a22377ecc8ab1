import type { ServiceContext } from "../context.ts";
import type { PathOf } from "../operation-input.ts";
import { type Evaluator, toEvaluator } from "./evaluator.ts";
import { requireEvaluator } from "./lookups.ts";

export async function getEvaluator(
  ctx: ServiceContext,
  { promptId, evaluatorId }: PathOf<"getEvaluator">,
): Promise<Evaluator> {
  return toEvaluator(await requireEvaluator(ctx, promptId, evaluatorId));
}
