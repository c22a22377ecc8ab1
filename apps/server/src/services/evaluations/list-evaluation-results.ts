import type { schemas } from "@pharos/contract";
import type { Database } from "../../store/schema.ts";
import type { ServiceContext } from "../context.ts";
import { loadColumns } from "../datasets/column.ts";
import { toRow } from "../datasets/row.ts";
import type { PathOf, QueryOf } from "../operation-input.ts";
import { paginate } from "../pagination.ts";
import { requireRun } from "./run.ts";

export type EvaluationResult = schemas.EvaluationResult;

export function toEvaluationResult(row: Database["evaluationResults"]): EvaluationResult {
  return {
    id: row.id,
    rowId: row.rowId,
    grade: row.grade,
    score: row.score,
    reason: row.reason,
    output: row.output,
    error: row.error,
    cost: row.cost,
    latency: row.latency,
    tokenCount: row.tokenCount,
    createdAt: row.createdAt,
  };
}

/**
 * One page of the run's results, by time or by score (ties by createdAt, then id, all in the sort's
 * direction, so the keyset is one row-value comparison on the run's index).
 */
export async function listEvaluationResults(
  ctx: ServiceContext,
  { promptId, evaluationId: runId }: PathOf<"listEvaluationResults">,
  query: QueryOf<"listEvaluationResults">,
) {
  const { grade, expand, ...page } = query;
  const run = await requireRun(ctx, promptId, runId);
  let select = ctx.db.selectFrom("evaluationResults").selectAll().where("runId", "=", run.id);
  if (grade !== undefined) select = select.where("grade", "=", grade);
  const results = await paginate(ctx, {
    operation: "listEvaluationResults",
    filters: { promptId, runId, grade, expand },
    page,
    table: "evaluationResults",
    select,
    toItem: toEvaluationResult,
    keyset: page.sort?.startsWith("score:") ? (["score", "createdAt"] as const) : "createdAt",
  });
  if (expand !== "row") return results;
  return { ...results, items: await withRows(ctx, run.datasetId, results.items) };
}

/**
 * Each result with its dataset row as it is now (every current column), `null` when the row (or its whole
 * dataset) has been deleted since: the page's rows in one query.
 */
async function withRows(ctx: ServiceContext, datasetId: string, results: EvaluationResult[]) {
  if (results.length === 0) return results;
  const rows = await ctx.db
    .selectFrom("datasetRows")
    .selectAll()
    .where("datasetId", "=", datasetId)
    .where(
      "id",
      "in",
      results.map((result) => result.rowId),
    )
    .execute();
  const columnIds = (await loadColumns(ctx, datasetId)).map((column) => column.id);
  const byId = new Map(rows.map((row) => [row.id, toRow(row, columnIds)]));
  return results.map((result) => ({ ...result, row: byId.get(result.rowId) ?? null }));
}
