import type { ServiceContext } from "../context.ts";
import { requireEvaluator } from "./lookups.ts";

/** Deletes an evaluator. (Runs, which would make this a 409 while active, arrive with the evaluations area.) */
export async function deleteEvaluator(ctx: ServiceContext, promptId: string, evaluatorId: string): Promise<void> {
  const evaluator = await requireEvaluator(ctx, promptId, evaluatorId);
  await ctx.db.deleteFrom("evaluators").where("id", "=", evaluator.id).execute();
}
