/**
 * The one way scores are stored, for the API's create verb and for workers (online evaluation): inserts scores
 * whose trace and span the caller has already resolved, inside the caller's transaction (or one of its own).
 */
import type { Insertable } from "kysely";
import { type ErrorDetail, failIfInvalid } from "../../errors.ts";
import type { Database, ScoreSource } from "../../store/schema.ts";
import type { ServiceContext } from "../context.ts";
import { addToScoreRollups, scoreRollupRows } from "../metrics/rollups.ts";
import { dataTypeOf, type Score, type ScoreValue, storedValue, toScore } from "./score.ts";
import { configViolation, scoreFieldProblems } from "./score-rules.ts";

/** What a worker needs to record scores: a database handle (a transaction's, to join it), the store, clock and ids. */
export type ScoreWriteContext = Pick<ServiceContext, "db" | "store" | "now" | "newId">;

export interface ScoreToRecord {
  workspaceId: string;
  projectId: string;
  /** The trace the score is on; with `spanId`, the trace of that span. Not checked here: the caller resolved it. */
  traceId: string;
  spanId: string | null;
  name: string;
  value: ScoreValue;
  comment: string | null;
  source: ScoreSource;
  evaluatorId: string | null;
  runId: string | null;
  /** The API key that wrote it; null for a score the server produced. */
  authorKeyId: string | null;
}

/**
 * Validates `scores` (field rules, then the score configs of their projects) and inserts them all, or none:
 * a VALIDATION_ERROR (400) lists every problem, fields named `scores.<i>.…` in the order given. Returns the
 * stored scores in that order.
 */
export function recordScores(ctx: ScoreWriteContext, scores: readonly ScoreToRecord[]): Promise<Score[]> {
  if (scores.length === 0) return Promise.resolve([]);
  return ctx.store.transaction(ctx.db, async (db) => {
    const problems: ErrorDetail[] = scores.flatMap((score, index) => scoreFieldProblems(score, `scores.${index}`));
    failIfInvalid(problems);
    failIfInvalid(await configProblems(db, scores));
    const now = ctx.now();
    const rows: Insertable<Database["scores"]>[] = scores.map((score) => ({
      id: ctx.newId("score"),
      workspaceId: score.workspaceId,
      projectId: score.projectId,
      traceId: score.traceId,
      spanId: score.spanId,
      name: score.name,
      dataType: dataTypeOf(score.value),
      ...storedValue(score.value),
      comment: score.comment,
      source: score.source,
      evaluatorId: score.evaluatorId,
      runId: score.runId,
      authorKeyId: score.authorKeyId,
      createdAt: now,
      updatedAt: now,
    }));
    await ctx.store.insertRows(db, "scores", rows);
    await addToScoreRollups(
      db,
      scoreRollupRows(
        rows.map((row) => ({ ...row, numberValue: row.numberValue ?? null, createdAt: row.createdAt as number })),
      ),
    );
    return rows.map((row) => toScore(row as Database["scores"]));
  });
}

/** The values that break the score config of their name, read once per project. */
async function configProblems(db: ScoreWriteContext["db"], scores: readonly ScoreToRecord[]): Promise<ErrorDetail[]> {
  const projectIds = [...new Set(scores.map((score) => score.projectId))];
  const names = [...new Set(scores.map((score) => score.name))];
  const configs = await db
    .selectFrom("scoreConfigs")
    .select(["projectId", "name", "dataType", "minValue", "maxValue", "categories"])
    .where("projectId", "in", projectIds)
    .where("name", "in", names)
    .execute();
  if (configs.length === 0) return [];
  const configOf = new Map(configs.map((config) => [`${config.projectId}\n${config.name}`, config]));
  return scores.flatMap((score, index) => {
    const config = configOf.get(`${score.projectId}\n${score.name}`);
    const violation = config && configViolation(config, score.value);
    return violation ? [{ field: `scores.${index}.value`, issue: violation }] : [];
  });
}
