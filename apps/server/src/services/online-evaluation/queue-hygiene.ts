/**
 * Keeping the queue of live spans (ADR 0016) from holding rows that no worker will ever take, or that nobody
 * reads any more. Run by the retention sweeper about once a minute, in every server process:
 *
 * - rows waiting for an evaluator that was deleted are deleted (deleteEvaluator deletes its rows, but a log
 *   write that read the evaluator from the cache just before may queue one after it);
 * - rows waiting for an evaluator that is no longer active (archived) are settled as not graded, with that
 *   reason: they count as failed in its online counts rather than pending for ever;
 * - finished rows queued more than `FINISHED_ROWS_KEPT_MS` ago are deleted: an evaluator's online counts cover
 *   that long. The grades stay as scores on the spans.
 *
 * Each step touches at most `BATCH` rows per statement, found through the (state, queuedAt) index, so the
 * writer (on SQLite, the one log writes need) is held briefly; a pass repeats a step until it is done.
 */
import type { Kysely } from "kysely";
import type { Database } from "../../store/schema.ts";
import type { Store } from "../../store/store.ts";

/** How long finished queue rows are kept: 30 days, the longest window an evaluator's online counts cover. */
export const FINISHED_ROWS_KEPT_MS = 30 * 24 * 60 * 60 * 1000;
export const NOT_ACTIVE_REASON = "The evaluator was archived before it graded the span.";
const BATCH = 1000;

export interface QueueHygieneResult {
  /** Rows of deleted evaluators deleted. */
  orphaned: number;
  /** Rows of evaluators no longer active settled as not graded. */
  settled: number;
  /** Finished rows past their age deleted. */
  pruned: number;
}

export async function tidyOnlineEvaluations({
  store,
  now,
  pause,
}: {
  store: Store;
  now: number;
  pause: () => Promise<void>;
}): Promise<QueueHygieneResult> {
  const result: QueueHygieneResult = { orphaned: 0, settled: 0, pruned: 0 };
  const repeat = async (step: (db: Kysely<Database>) => Promise<number>) => {
    let total = 0;
    for (;;) {
      const done = await store.transaction(store.db, step);
      total += done;
      if (done < BATCH) return total;
      await pause();
    }
  };
  result.orphaned = await repeat(async (db) => {
    const deleted = await db
      .deleteFrom("onlineEvaluations")
      .where(({ eb, refTuple, selectFrom }) =>
        eb(
          refTuple("spanId", "evaluatorId"),
          "in",
          selectFrom("onlineEvaluations as queued")
            .select(["queued.spanId", "queued.evaluatorId"])
            .where("queued.state", "in", ["pending", "claimed"])
            .where(({ not, exists, selectFrom: inner }) =>
              not(
                exists(
                  inner("evaluators").select("evaluators.id").whereRef("evaluators.id", "=", "queued.evaluatorId"),
                ),
              ),
            )
            .limit(BATCH)
            .$asTuple("spanId", "evaluatorId"),
        ),
      )
      .executeTakeFirst();
    return Number(deleted.numDeletedRows);
  });
  result.settled = await repeat(async (db) => {
    const updated = await db
      .updateTable("onlineEvaluations")
      .set({ state: "done", gradedAt: now, grade: "unknown", score: 0, reason: "", error: NOT_ACTIVE_REASON })
      .where(({ eb, refTuple, selectFrom }) =>
        eb(
          refTuple("spanId", "evaluatorId"),
          "in",
          selectFrom("onlineEvaluations as queued")
            .innerJoin("evaluators", "evaluators.id", "queued.evaluatorId")
            .select(["queued.spanId", "queued.evaluatorId"])
            .where("queued.state", "=", "pending")
            .where("evaluators.status", "<>", "active")
            .limit(BATCH)
            .$asTuple("spanId", "evaluatorId"),
        ),
      )
      .executeTakeFirst();
    return Number(updated.numUpdatedRows);
  });
  result.pruned = await repeat(async (db) => {
    const deleted = await db
      .deleteFrom("onlineEvaluations")
      .where(({ eb, refTuple, selectFrom }) =>
        eb(
          refTuple("spanId", "evaluatorId"),
          "in",
          selectFrom("onlineEvaluations as queued")
            .select(["queued.spanId", "queued.evaluatorId"])
            .where("queued.state", "=", "done")
            .where("queued.queuedAt", "<", now - FINISHED_ROWS_KEPT_MS)
            .limit(BATCH)
            .$asTuple("spanId", "evaluatorId"),
        ),
      )
      .executeTakeFirst();
    return Number(deleted.numDeletedRows);
  });
  return result;
}
