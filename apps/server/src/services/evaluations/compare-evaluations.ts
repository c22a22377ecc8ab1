/**
 * A candidate run compared with a baseline run of the same dataset, row by row. The rows are every row either
 * run has a result for (the runs' rows are fixed when each is accepted, so they may differ); each row's change
 * is classified in SQL, so the `change` filter, the counts and the keyset on the row id are one query each.
 */
import type { schemas } from "@pharos/contract";
import { sql } from "kysely";
import { ApiError, invalid, notFound } from "../../errors.ts";
import type { ServiceContext } from "../context.ts";
import type { PathOf, QueryOf, Unread } from "../operation-input.ts";
import { decodeCursor, encodeCursor, queryHash } from "../pagination.ts";
import { requirePrompt } from "../prompts/prompt.ts";
import { toEvaluationResult } from "./list-evaluation-results.ts";
import { type RunRow, requireRun } from "./run.ts";

type RowChange = schemas.EvaluationRowChange;
type RunTotals = schemas.EvaluationRunTotals;

const ROW_CHANGES: readonly RowChange[] = ["regressed", "improved", "changed", "unchanged", "added", "removed"];

/** The baseline: a run of any prompt of the workspace whose project the key may use. */
async function requireBaseline(ctx: ServiceContext, runId: string): Promise<RunRow> {
  const run = await ctx.db.selectFrom("evaluationRuns").selectAll().where("id", "=", runId).executeTakeFirst();
  if (!run) throw notFound("Baseline evaluation run");
  try {
    await requirePrompt(ctx, run.promptId);
  } catch (error) {
    // A run of another workspace's prompt is unknown, as the prompt is; a restricted project stays a 403.
    if (error instanceof ApiError && error.code === "RESOURCE_NOT_FOUND") throw notFound("Baseline evaluation run");
    throw error;
  }
  return run;
}

function requireComparable(baseline: RunRow, candidate: RunRow): void {
  if (baseline.datasetId !== candidate.datasetId) {
    throw invalid("baselineId", "The baseline run evaluated another dataset than the candidate run.");
  }
  for (const [which, run] of [
    ["baseline", baseline],
    ["candidate", candidate],
  ] as const) {
    if (run.status !== "completed") {
      throw invalid("baselineId", `The ${which} run is ${run.status}: only completed runs can be compared.`);
    }
  }
}

/**
 * Every row either run has a result for, with its change: `b` and `c` are the baseline's and candidate's
 * results (either may be missing). The output comparison is spelled out so that `null` compares as a value.
 */
function changedRows(ctx: ServiceContext, baselineId: string, candidateId: string) {
  const rowIds = ctx.db
    .selectFrom("evaluationResults")
    .select("rowId")
    .where("runId", "in", [baselineId, candidateId])
    .groupBy("rowId")
    .as("r");
  const change = sql<RowChange>`case
    when b.id is null then 'added'
    when c.id is null then 'removed'
    when b.grade = 'pass' and c.grade <> 'pass' then 'regressed'
    when b.grade <> 'pass' and c.grade = 'pass' then 'improved'
    when b.grade <> c.grade or b.score <> c.score
      or (b.output is null and c.output is not null) or (b.output is not null and c.output is null)
      or b.output <> c.output then 'changed'
    else 'unchanged' end`;
  return ctx.db
    .selectFrom(rowIds)
    .leftJoin("evaluationResults as b", (join) => join.onRef("b.rowId", "=", "r.rowId").on("b.runId", "=", baselineId))
    .leftJoin("evaluationResults as c", (join) => join.onRef("c.rowId", "=", "r.rowId").on("c.runId", "=", candidateId))
    .select(["r.rowId as rowId", change.as("change")]);
}

function runTotals(run: RunRow): RunTotals {
  const results = run.passRuns + run.failRuns + run.unknownRuns;
  return {
    results,
    passRuns: run.passRuns,
    failRuns: run.failRuns,
    unknownRuns: run.unknownRuns,
    passRate: results === 0 ? null : run.passRuns / results,
    totalCost: run.totalCost,
    totalLatency: run.totalLatency,
    totalTokenCount: run.totalTokenCount,
  };
}

function delta(baseline: RunTotals, candidate: RunTotals): schemas.EvaluationTotalsDelta {
  return {
    passRate: baseline.passRate === null || candidate.passRate === null ? null : candidate.passRate - baseline.passRate,
    totalCost: candidate.totalCost - baseline.totalCost,
    totalLatency: candidate.totalLatency - baseline.totalLatency,
    totalTokenCount: candidate.totalTokenCount - baseline.totalTokenCount,
  };
}

export async function compareEvaluations(
  ctx: ServiceContext,
  { promptId, evaluationId }: PathOf<"compareEvaluations">,
  query: QueryOf<"compareEvaluations">,
): Promise<schemas.EvaluationComparison> {
  const { baselineId, change, limit = 50, cursor, ...unread } = query;
  unread satisfies Unread;
  const candidate = await requireRun(ctx, promptId, evaluationId);
  const baseline = await requireBaseline(ctx, baselineId);
  requireComparable(baseline, candidate);

  const hash = queryHash("compareEvaluations", ctx.principal.workspaceId, {
    promptId,
    evaluationId,
    baselineId,
    change,
  });
  const rows = ctx.db.selectFrom(changedRows(ctx, baseline.id, candidate.id).as("x"));
  let page = rows.select(["x.rowId", "x.change"]);
  if (change !== undefined) page = page.where("x.change", "=", change);
  if (cursor !== undefined) {
    const [afterRowId] = decodeCursor(ctx.cursorSecret, hash, cursor, 0) as [string];
    page = page.where("x.rowId", ">", afterRowId);
  }
  const found = await page
    .orderBy("x.rowId")
    .limit(limit + 1)
    .execute();
  const hasMore = found.length > limit;
  const pageRows = found.slice(0, limit);

  const counts = await rows
    .select((eb) => ["x.change", eb.fn.countAll<number | string | bigint>().as("rows")])
    .groupBy("x.change")
    .execute();
  const changes = Object.fromEntries(ROW_CHANGES.map((kind) => [kind, 0])) as Record<RowChange, number>;
  for (const { change: kind, rows: n } of counts) changes[kind] = Number(n);

  const sides = await resultsOf(
    ctx,
    [baseline.id, candidate.id],
    pageRows.map((row) => row.rowId),
  );
  const side = (runId: string, rowId: string) => {
    const result = sides.get(`${runId}/${rowId}`);
    return result ? toEvaluationResult(result) : null;
  };
  const baselineTotals = runTotals(baseline);
  const candidateTotals = runTotals(candidate);
  const last = pageRows.at(-1);
  return {
    baselineId: baseline.id,
    candidateId: candidate.id,
    datasetId: candidate.datasetId,
    totals: {
      baseline: baselineTotals,
      candidate: candidateTotals,
      delta: delta(baselineTotals, candidateTotals),
      changes,
    },
    rows: pageRows.map(({ rowId, change: rowChange }) => ({
      rowId,
      change: rowChange,
      baseline: side(baseline.id, rowId),
      candidate: side(candidate.id, rowId),
    })),
    pagination: {
      limit,
      returned: pageRows.length,
      hasMore,
      nextCursor: hasMore && last ? encodeCursor(ctx.cursorSecret, hash, [last.rowId]) : null,
    },
  };
}

/** The runs' results for the page's rows, by `runId/rowId`: one query on the (runId, rowId) index. */
async function resultsOf(ctx: ServiceContext, runIds: string[], rowIds: string[]) {
  if (rowIds.length === 0) return new Map();
  const results = await ctx.db
    .selectFrom("evaluationResults")
    .selectAll()
    .where("runId", "in", runIds)
    .where("rowId", "in", rowIds)
    .execute();
  return new Map(results.map((result) => [`${result.runId}/${result.rowId}`, result]));
}
