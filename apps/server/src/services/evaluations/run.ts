/**
 * The evaluation run record: its stored form (an `evaluationRuns` row with what it evaluates copied in), the
 * API shape built from it, and the lookups every run-scoped operation starts with.
 */
import type { schemas } from "@pharos/contract";
import { notFound } from "../../errors.ts";
import type { Database, EvaluationRunStatus } from "../../store/schema.ts";
import type { ServiceContext } from "../context.ts";
import { requirePrompt } from "../prompts/prompt.ts";

export type EvaluationRun = schemas.EvaluationRun;
export type RunRow = Database["evaluationRuns"];

/** The prompt version a run evaluates, as stored in `evaluationRuns.promptVersion`. */
export interface RunPromptVersion {
  config: schemas.PromptConfig;
  messages: schemas.PromptMessage[];
  tools: schemas.PromptTool[];
}

/** Statuses in which a run still uses its evaluator and dataset (deleting either is refused meanwhile). */
export const ACTIVE_RUN_STATUSES: readonly EvaluationRunStatus[] = ["queued", "running", "cancelling"];

/** (completed + failed) / total × 100 to two decimals; computed on integers so 1/3 is 33.33, not 33.329999. */
function percentDone(row: RunRow): number {
  if (row.totalRows === 0) return 100;
  return Math.round(((row.completedRows + row.failedRows) * 10_000) / row.totalRows) / 100;
}

export function toEvaluationRun(row: RunRow): EvaluationRun {
  return {
    runId: row.id,
    promptId: row.promptId,
    evaluatorId: row.evaluatorId,
    datasetId: row.datasetId,
    deploymentId: row.deploymentId,
    status: row.status,
    progress: {
      totalRows: row.totalRows,
      completedRows: row.completedRows,
      failedRows: row.failedRows,
      percent: percentDone(row),
    },
    metrics: {
      passRuns: row.passRuns,
      failRuns: row.failRuns,
      unknownRuns: row.unknownRuns,
      totalCost: row.totalCost,
      totalLatency: row.totalLatency,
      totalTokenCount: row.totalTokenCount,
    },
    timeline: { submittedAt: row.createdAt, startedAt: row.startedAt, finishedAt: row.finishedAt },
    error: row.error,
  };
}

/** The run, which must belong to the prompt (a run of another prompt is 404 like an unknown one). */
export async function requireRun(ctx: ServiceContext, promptId: string, runId: string): Promise<RunRow> {
  const prompt = await requirePrompt(ctx, promptId);
  const run = await ctx.db
    .selectFrom("evaluationRuns")
    .selectAll()
    .where("id", "=", runId)
    .where("promptId", "=", prompt.id)
    .executeTakeFirst();
  if (!run) throw notFound("Evaluation run");
  return run;
}

/**
 * Reads the run and locks it until the transaction ends, before its status changes (claims take a shared
 * lock, so a status change and a claim never interleave).
 */
export function lockRun(ctx: ServiceContext, runId: string): Promise<RunRow | undefined> {
  return ctx.store.sql.locks
    .forUpdate(ctx.db.selectFrom("evaluationRuns").selectAll().where("id", "=", runId))
    .executeTakeFirst();
}

/** One unfinished run over the evaluator or dataset, if any: deleting either waits until its runs end. */
export function findActiveRun(ctx: ServiceContext, column: "evaluatorId" | "datasetId", id: string) {
  return ctx.db
    .selectFrom("evaluationRuns")
    .select(["id", "status"])
    .where(column, "=", id)
    .where("status", "in", ACTIVE_RUN_STATUSES)
    .limit(1)
    .executeTakeFirst();
}
