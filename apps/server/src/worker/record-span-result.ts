/**
 * Records a live span's grade in one transaction: the queue row becomes `done` with the grade (or the reason it
 * could not be graded), and the grade becomes a score on the span (`source: evaluator`). The row is updated
 * only while it is not done yet, and the score is written only by the update that made it done: a span graded
 * twice (a worker that lost its lease and finished anyway) counts once and scores once.
 *
 * The score's name is the evaluator's title and its value the grade (`pass`, `fail`, `unknown`, a category);
 * its comment carries the numeric score and the reason. A score config of that name that refuses the value
 * (400 for an API caller) makes the result's error instead: the grade stays visible on the queue row.
 */
import type { Kysely, Updateable } from "kysely";
import { ApiError } from "../errors.ts";
import type { IdGenerator } from "../ids.ts";
import { recordScores } from "../services/scores/record-scores.ts";
import { MAX_COMMENT_LENGTH, MAX_SCORE_NAME_LENGTH } from "../services/scores/score-rules.ts";
import type { Database } from "../store/schema.ts";
import type { Store } from "../store/store.ts";
import type { SpanGrade, SpanToGrade } from "./grade-span.ts";
import type { ClaimedSpan } from "./online-claims.ts";

export interface SpanRecordContext {
  db: Kysely<Database>;
  store: Store;
  now: number;
  newId: IdGenerator;
}

export interface GradedSpan {
  span: ClaimedSpan;
  toGrade: SpanToGrade | undefined;
  result: SpanGrade;
}

/** Records several spans' results in one transaction (one commit); returns how many this call recorded. */
export function recordSpanResults(context: SpanRecordContext, graded: readonly GradedSpan[]): Promise<number> {
  return context.store.transaction(context.db, async (trx) => {
    let recorded = 0;
    for (const { span, toGrade, result } of graded) {
      if (await recordSpanResult({ ...context, db: trx }, span, toGrade, result)) recorded += 1;
    }
    return recorded;
  });
}

/** Whether this call recorded the result (false: another worker had already). */
export function recordSpanResult(
  context: SpanRecordContext,
  claimed: ClaimedSpan,
  span: SpanToGrade | undefined,
  result: SpanGrade,
): Promise<boolean> {
  const { store, now } = context;
  return store.transaction(context.db, async (trx) => {
    const done = (changes: Updateable<Database["onlineEvaluations"]>) =>
      trx
        .updateTable("onlineEvaluations")
        .set({ state: "done", leaseOwner: null, leaseExpiresAt: null, gradedAt: now, ...changes })
        .where("spanId", "=", claimed.spanId)
        .where("evaluatorId", "=", claimed.evaluatorId)
        .where("state", "<>", "done")
        .executeTakeFirst();
    const { grade, score, reason, error, judgeCalls } = result;
    const updated = await done({ grade, score, reason, error, judgeCalls });
    if (Number(updated.numUpdatedRows) !== 1 || span === undefined) return Number(updated.numUpdatedRows) === 1;
    const summary = error === null ? `Score ${score}. ${reason}` : `Not graded: ${error}`;
    try {
      await recordScores({ store, db: trx, now: () => now, newId: context.newId }, [
        {
          workspaceId: span.workspaceId,
          projectId: span.projectId,
          traceId: span.traceId,
          spanId: claimed.spanId,
          name: span.evaluatorTitle.slice(0, MAX_SCORE_NAME_LENGTH),
          value: grade,
          comment: summary.length > MAX_COMMENT_LENGTH ? `${summary.slice(0, MAX_COMMENT_LENGTH - 1)}…` : summary,
          source: "evaluator",
          evaluatorId: claimed.evaluatorId,
          runId: null,
          authorKeyId: null,
        },
      ]);
    } catch (failure) {
      if (!(failure instanceof ApiError) || failure.code !== "VALIDATION_ERROR") throw failure;
      const refused = failure.details?.map((detail) => detail.issue).join("; ") ?? failure.message;
      await trx
        .updateTable("onlineEvaluations")
        .set({ error: `The grade could not be stored as a score: ${refused}` })
        .where("spanId", "=", claimed.spanId)
        .where("evaluatorId", "=", claimed.evaluatorId)
        .execute();
    }
    return true;
  });
}
