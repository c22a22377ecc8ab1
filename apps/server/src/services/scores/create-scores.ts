import { type ErrorDetail, failIfInvalid, notFound } from "../../errors.ts";
import { inTransaction, type ServiceContext } from "../context.ts";
import type { BodyOf, PathOf, Unread } from "../operation-input.ts";
import { requireProject } from "../projects/project.ts";
import { recordScores, type ScoreToRecord } from "./record-scores.ts";
import type { Score } from "./score.ts";

type ScoreInput = BodyOf<"createScores">["scores"][number];

/** Scores from an application or a person (`source: api`) on traces and spans of the project: all or none. */
export function createScores(
  ctx: ServiceContext,
  { projectId }: PathOf<"createScores">,
  body: BodyOf<"createScores">,
): Promise<{ scores: Score[] }> {
  const { scores, ...unread } = body;
  unread satisfies Unread;
  return inTransaction(ctx, async (tx) => {
    await requireProject(tx, projectId);
    const targets = await resolveTargets(tx, projectId, scores);
    const toRecord = scores.map((score, index): ScoreToRecord => {
      const { traceId, traceReferenceId, spanId, name, value, comment, ...unreadScore } = score;
      unreadScore satisfies Unread;
      return {
        workspaceId: tx.principal.workspaceId,
        projectId,
        traceId: targets[index] as string,
        spanId: spanId ?? null,
        name,
        value,
        comment: comment ?? null,
        source: "api",
        evaluatorId: null,
        runId: null,
        authorKeyId: tx.principal.keyId,
      };
    });
    return { scores: await recordScores(tx, toRecord) };
  });
}

/**
 * The trace id of each score: its `traceId`, the trace of its `traceReferenceId`, or its span's trace. A trace
 * or span that is not in the project (another project's, another workspace's, none) is 404; naming none, both
 * a trace id and a reference, or a span of another trace, is 400.
 */
async function resolveTargets(ctx: ServiceContext, projectId: string, given: readonly ScoreInput[]) {
  const problems: ErrorDetail[] = [];
  given.forEach((score, index) => {
    if (score.traceId === undefined && score.traceReferenceId === undefined && score.spanId === undefined)
      problems.push({ field: `scores.${index}`, issue: "must name a traceId, a traceReferenceId or a spanId" });
    if (score.traceId !== undefined && score.traceReferenceId !== undefined)
      problems.push({ field: `scores.${index}.traceReferenceId`, issue: "must not be given with traceId" });
  });
  failIfInvalid(problems);
  const scores = await withReferencedTraces(ctx, projectId, given);

  const spanIds = [...new Set(scores.flatMap((score) => (score.spanId === undefined ? [] : [score.spanId])))];
  const traceIds = [...new Set(scores.flatMap((score) => (score.traceId === undefined ? [] : [score.traceId])))];
  const spans =
    spanIds.length === 0
      ? []
      : await ctx.db
          .selectFrom("logSpans")
          .select(["id", "traceId"])
          .where("projectId", "=", projectId)
          .where("id", "in", spanIds)
          .execute();
  const traces =
    traceIds.length === 0
      ? []
      : await ctx.db
          .selectFrom("logTraces")
          .select("id")
          .where("projectId", "=", projectId)
          .where("id", "in", traceIds)
          .execute();
  const traceOfSpan = new Map(spans.map((span) => [span.id, span.traceId]));
  const knownTraces = new Set(traces.map((trace) => trace.id));
  const missingSpan = spanIds.find((id) => !traceOfSpan.has(id));
  if (missingSpan !== undefined) throw notFound(`Span ${missingSpan}`);
  const missingTrace = traceIds.find((id) => !knownTraces.has(id));
  if (missingTrace !== undefined) throw notFound(`Trace ${missingTrace}`);

  const resolved = scores.map((score, index) => {
    const spanTrace = score.spanId === undefined ? undefined : traceOfSpan.get(score.spanId);
    if (spanTrace !== undefined && score.traceId !== undefined && spanTrace !== score.traceId)
      problems.push({ field: `scores.${index}.spanId`, issue: "is a span of another trace than traceId" });
    return spanTrace ?? score.traceId;
  });
  failIfInvalid(problems);
  return resolved;
}

/** `scores` with each `traceReferenceId` replaced by the id of the project's trace of that reference (404 if none). */
async function withReferencedTraces(ctx: ServiceContext, projectId: string, scores: readonly ScoreInput[]) {
  const references = [...new Set(scores.flatMap((score) => score.traceReferenceId ?? []))];
  if (references.length === 0) return scores;
  const traces = await ctx.db
    .selectFrom("logTraces")
    .select(["id", "referenceId"])
    .where("projectId", "=", projectId)
    .where("referenceId", "in", references)
    .execute();
  const idOf = new Map(traces.map((trace) => [trace.referenceId, trace.id]));
  const missing = references.find((reference) => !idOf.has(reference));
  if (missing !== undefined) throw notFound(`Trace with referenceId "${missing}"`);
  return scores.map(({ traceReferenceId, ...score }) =>
    traceReferenceId === undefined ? score : { ...score, traceId: idOf.get(traceReferenceId) },
  );
}
