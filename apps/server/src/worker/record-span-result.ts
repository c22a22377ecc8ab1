/**
 * Records live spans' grades in one transaction: the queue row becomes `done` with the grade (or the reason it
 * could not be graded), and the grade becomes a score on the span (`source: evaluator`). The row is updated
 * only while it is not done yet, and the score is written only by the update that made it done: a span graded
 * twice (a worker that lost its lease and finished anyway) counts once and scores once.
 *
 * The score's name is the evaluator's title and its value the grade (`pass`, `fail`, `unknown`, a category);
 * its comment carries the numeric score and the reason. A score config of that name that refuses the value
 * (400 for an API caller) makes the result's error instead: the grade stays visible on the queue row.
 */
import type { Kysely } from "kysely";
import { ApiError } from "../errors.ts";
import type { IdGenerator } from "../ids.ts";
import { recordScores, type ScoreToRecord } from "../services/scores/record-scores.ts";
import { MAX_COMMENT_LENGTH, MAX_SCORE_NAME_LENGTH } from "../services/scores/score-rules.ts";
import type { Database } from "../store/schema.ts";
import type { Store } from "../store/store.ts";
import type { SpanGrade, SpanToGrade } from "./grade-span.ts";
import { type ClaimedSpan, isFree, keyIn, spanKey } from "./online-claims.ts";

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

/**
 * Records several spans' results in one transaction (one commit): one conditional update per distinct result
 * (a deterministic evaluator gives most spans the same one, so a lot of 50 is one or two statements, not 50),
 * then the scores of the rows this call made done in one statement (one score-config read for the lot).
 * Returns how many this call recorded.
 */
export function recordSpanResults(context: SpanRecordContext, graded: readonly GradedSpan[]): Promise<number> {
  return context.store.transaction(context.db, (trx) => recordIn({ ...context, db: trx }, graded));
}

/**
 * Records the grades of spans not claimed (SpansToGrade.atOnce), read and graded without a lock: each row is
 * updated only while it is still free (pending, or its worker's lease ran out), so a row another worker claimed
 * or graded meanwhile keeps that worker's grade; two workers grading the same row at once both compute, one
 * records (the grade is a computation on the span: the same either way). Returns how many were recorded.
 */
export function recordUnclaimedSpanResults(context: SpanRecordContext, graded: readonly GradedSpan[]): Promise<number> {
  if (graded.length === 0) return Promise.resolve(0);
  return context.store.transaction(context.db, (trx) => recordIn({ ...context, db: trx }, graded, "free"));
}

/** Records `graded` in the transaction `context.db` belongs to. */
async function recordIn(
  context: SpanRecordContext,
  graded: readonly GradedSpan[],
  rows: "not done" | "free" = "not done",
): Promise<number> {
  const byResult = new Map<string, GradedSpan[]>();
  for (const entry of graded) {
    const { grade, score, reason, error, judgeCalls } = entry.result;
    const same = JSON.stringify([grade, score, reason, error, judgeCalls]);
    byResult.set(same, [...(byResult.get(same) ?? []), entry]);
  }
  const trx = context.db;
  const scored: { span: ClaimedSpan; score: ScoreToRecord }[] = [];
  let recorded = 0;
  for (const entries of byResult.values()) {
    const { grade, score, reason, error, judgeCalls } = (entries[0] as GradedSpan).result;
    const updated = await trx
      .updateTable("onlineEvaluations")
      .set({
        state: "done",
        leaseOwner: null,
        leaseExpiresAt: null,
        gradedAt: context.now,
        grade,
        score,
        reason,
        error,
        judgeCalls,
      })
      .where(keyIn(entries.map(({ span }) => span)))
      .where(rows === "free" ? isFree(context.now) : (eb) => eb("state", "<>", "done"))
      .returning(["spanId", "evaluatorId"])
      .execute();
    const done = new Set(updated.map(spanKey));
    recorded += done.size;
    for (const { span, toGrade, result } of entries) {
      if (toGrade && done.has(spanKey(span))) scored.push({ span, score: scoreOf(span, toGrade, result) });
    }
  }
  await recordGradeScores(context, scored);
  return recorded;
}

/** The score a grade becomes. */
function scoreOf(claimed: ClaimedSpan, span: SpanToGrade, result: SpanGrade): ScoreToRecord {
  const { grade, score, reason, error } = result;
  const summary = error === null ? `Score ${score}. ${reason}` : `Not graded: ${error}`;
  return {
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
  };
}

/**
 * Stores the grades' scores in one statement. A score that its score config refuses (a 400 for an API
 * caller) is not stored: the refusal becomes its queue row's error, and the others are stored without it.
 */
async function recordGradeScores(
  context: SpanRecordContext,
  scored: readonly { span: ClaimedSpan; score: ScoreToRecord }[],
): Promise<void> {
  let pending = scored;
  while (pending.length > 0) {
    try {
      await recordScores(
        { store: context.store, db: context.db, now: () => context.now, newId: context.newId },
        pending.map(({ score }) => score),
      );
      return;
    } catch (failure) {
      if (!(failure instanceof ApiError) || failure.code !== "VALIDATION_ERROR") throw failure;
      const refusals = new Map<number, string[]>();
      for (const detail of failure.details ?? []) {
        const index = Number(/^scores\.(\d+)\./.exec(detail.field ?? "")?.[1]);
        if (Number.isInteger(index)) refusals.set(index, [...(refusals.get(index) ?? []), detail.issue]);
      }
      // A refusal that names no score would refuse the lot again: record it on every row of the lot.
      if (refusals.size === 0) for (const index of pending.keys()) refusals.set(index, [failure.message]);
      for (const [index, issues] of refusals) {
        const { span } = pending[index] as { span: ClaimedSpan };
        await context.db
          .updateTable("onlineEvaluations")
          .set({ error: `The grade could not be stored as a score: ${issues.join("; ")}` })
          .where("spanId", "=", span.spanId)
          .where("evaluatorId", "=", span.evaluatorId)
          .execute();
      }
      pending = pending.filter((_, index) => !refusals.has(index));
    }
  }
}
