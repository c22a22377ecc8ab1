import { conflict, notFound } from "../../errors.ts";
import { inTransaction, type ServiceContext } from "../context.ts";
import type { PathOf } from "../operation-input.ts";
import { type EvaluationRun, lockRun, requireRun, toEvaluationRun } from "./run.ts";

/**
 * queued → cancelled; running → cancelling while a worker holds a live lease on one of its rows (those rows
 * finish and keep their results; the worker recording the last one ends the run), else cancelled at once;
 * cancelling stays as it is; a finished run is 409. The run is locked, so no claim slips in between the check
 * and the change.
 */
export function cancelEvaluation(
  ctx: ServiceContext,
  { promptId, evaluationId: runId }: PathOf<"cancelEvaluation">,
): Promise<EvaluationRun> {
  return inTransaction(ctx, async (tx) => {
    await requireRun(tx, promptId, runId);
    const run = await lockRun(tx, runId);
    if (!run) throw notFound("Evaluation run");
    if (run.status === "cancelling") return toEvaluationRun(run);
    if (run.status !== "queued" && run.status !== "running") {
      throw conflict(`The run is already ${run.status}; only a queued or running run can be cancelled.`);
    }
    const now = tx.now();
    const inFlight = run.status === "running" && (await hasRowInFlight(tx, run.id, now));
    const changes = inFlight
      ? { status: "cancelling" as const, updatedAt: now }
      : { status: "cancelled" as const, finishedAt: now, updatedAt: now };
    await tx.db.updateTable("evaluationRuns").set(changes).where("id", "=", run.id).execute();
    return toEvaluationRun({ ...run, ...changes });
  });
}

/** A row claimed under a lease that has not expired (an expired one is claimable again: nobody works on it). */
async function hasRowInFlight(ctx: ServiceContext, runId: string, now: number): Promise<boolean> {
  const item = await ctx.db
    .selectFrom("evaluationRunItems")
    .select("rowId")
    .where("runId", "=", runId)
    .where("state", "=", "claimed")
    .where("leaseExpiresAt", ">=", now)
    .limit(1)
    .executeTakeFirst();
  return item !== undefined;
}
