/**
 * Continuous evaluation's write side: the queue rows of live spans, made before the spans' batch runs so they
 * are inserted with the spans, in the same transaction (a committed span asking for evaluation is never
 * forgotten, and a span that is not committed leaves no work). One row per span and active evaluator of its
 * prompt that samples it and whose filters it matches.
 */
import { createHash } from "node:crypto";
import type { schemas } from "@pharos/contract";
import type { Database } from "../../store/schema.ts";
import type { ServiceContext } from "../context.ts";
import { fromJson } from "../json.ts";
import { type FilterableSpan, matchesAll } from "./span-filters.ts";

export type OnlineEvaluationRow = Omit<Database["onlineEvaluations"], "judgeCalls">;

export interface OnlineEvaluator {
  id: string;
  sampleRate: number;
  filters: schemas.LogFilter[];
}

/**
 * Whether `spanId` is in `evaluatorId`'s sample: the first 32 bits of SHA-256 of `spanId:evaluatorId`, as a
 * fraction of 2³², below `sampleRate`. Reproducible (the same span is always in or out), independent between
 * evaluators, and uniform whatever the ids look like (ULIDs share their time prefix).
 */
export function inSample(spanId: string, evaluatorId: string, sampleRate: number): boolean {
  if (sampleRate >= 1) return true;
  if (sampleRate <= 0) return false;
  const digest = createHash("sha256").update(`${spanId}:${evaluatorId}`).digest();
  return digest.readUInt32BE(0) / 2 ** 32 < sampleRate;
}

/**
 * The active evaluators of a prompt with their online settings, from the read cache: the evaluators table bumps
 * the cache generation (migration 0012), so a change is seen by the next write on every replica, and a log
 * write pays no query for them.
 */
export function onlineEvaluatorsOf(ctx: ServiceContext, promptId: string): Promise<OnlineEvaluator[]> {
  return ctx.cache.get(JSON.stringify(["onlineEvaluators", promptId]), async () => {
    const rows = await ctx.db
      .selectFrom("evaluators")
      .select(["id", "onlineSampleRate", "onlineFilters"])
      .where("promptId", "=", promptId)
      .where("status", "=", "active")
      .orderBy("id")
      .execute();
    return rows.map((row) => ({
      id: row.id,
      sampleRate: Number(row.onlineSampleRate),
      filters: fromJson<schemas.LogFilter[]>(row.onlineFilters),
    }));
  });
}

/** Whether a span row asks to be evaluated: `runEvaluation` and a prompt. */
const asksForEvaluation = (row: FilterableSpan["row"]) => row.runEvaluation === 1 && row.promptId !== null;

/**
 * The online evaluators of the prompts that `spans` ask evaluation of, read before a write's transaction: a
 * write whose spans are only known inside its transaction (OTLP attaches spans to a locked trace) passes them
 * to `onlineEvaluationRows` there, which then reads nothing.
 */
export async function onlineEvaluatorsFor(
  ctx: ServiceContext,
  spans: readonly { promptId?: string | null | undefined; runEvaluation?: boolean | undefined }[],
): Promise<Map<string, OnlineEvaluator[]>> {
  const evaluators = new Map<string, OnlineEvaluator[]>();
  for (const span of spans) {
    if (!span.runEvaluation || !span.promptId || evaluators.has(span.promptId)) continue;
    evaluators.set(span.promptId, await onlineEvaluatorsOf(ctx, span.promptId));
  }
  return evaluators;
}

/**
 * The queue rows of `spans` (rows as they will be stored, with their input): none for spans not asking.
 * `evaluators`, when given, holds the evaluators of every prompt the asking spans name (onlineEvaluatorsFor).
 */
export async function onlineEvaluationRows(
  ctx: ServiceContext,
  spans: readonly FilterableSpan[],
  evaluators?: ReadonlyMap<string, OnlineEvaluator[]>,
): Promise<OnlineEvaluationRow[]> {
  const rows: OnlineEvaluationRow[] = [];
  for (const span of spans) {
    const { row } = span;
    if (!asksForEvaluation(row) || row.promptId === null) continue;
    const ofPrompt = evaluators ? (evaluators.get(row.promptId) ?? []) : await onlineEvaluatorsOf(ctx, row.promptId);
    for (const evaluator of ofPrompt) {
      if (!inSample(row.id, evaluator.id, evaluator.sampleRate) || !matchesAll(span, evaluator.filters)) continue;
      rows.push({
        spanId: row.id,
        evaluatorId: evaluator.id,
        workspaceId: row.workspaceId,
        projectId: row.projectId,
        traceId: row.traceId,
        state: "pending",
        leaseOwner: null,
        leaseExpiresAt: null,
        queuedAt: row.createdAt,
        gradedAt: null,
        grade: null,
        score: null,
        reason: null,
        error: null,
      });
    }
  }
  return rows;
}
