import { conflict } from "../../errors.ts";
import { inTransaction, type ServiceContext } from "../context.ts";
import { findActiveRun } from "../evaluations/run.ts";
import type { PathOf } from "../operation-input.ts";
import { requireEvaluator } from "./evaluator.ts";

/**
 * Deletes an evaluator; its past runs and their results stay (they keep its id), and so do the scores it gave
 * live spans, but its queue of live spans goes with it (done or not: its online counts can no longer be read). Refused (409) while one of
 * its runs is unfinished. The evaluator row is locked first, as createEvaluation locks it, so a run created
 * meanwhile is either seen here or finds the evaluator gone.
 */
export function deleteEvaluator(
  ctx: ServiceContext,
  { promptId, evaluatorId }: PathOf<"deleteEvaluator">,
): Promise<void> {
  return inTransaction(ctx, async (tx) => {
    const evaluator = await requireEvaluator(tx, promptId, evaluatorId);
    await tx.store.sql.locks
      .forUpdate(tx.db.selectFrom("evaluators").select("id").where("id", "=", evaluator.id))
      .execute();
    const run = await findActiveRun(tx, "evaluatorId", evaluator.id);
    if (run) throw conflict(`Evaluation run ${run.id} of this evaluator is ${run.status}; cancel it first.`);
    await tx.db.deleteFrom("onlineEvaluations").where("evaluatorId", "=", evaluator.id).execute();
    await tx.db.deleteFrom("evaluators").where("id", "=", evaluator.id).execute();
  });
}
