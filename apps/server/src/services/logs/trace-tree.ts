import type { schemas } from "@pharos/contract";
import { notFound } from "../../errors.ts";
import type { ServiceContext } from "../context.ts";
import type { PathOf } from "../operation-input.ts";
import { requireProject } from "../projects/project.ts";
import { scoreSummaries } from "../scores/score-summaries.ts";
import { type LogSpan, toLogSpan } from "./search-items.ts";

export type LogSpanSummary = schemas.LogSpanSummary;

/** The columns of a span summary: everything but the content, attributes, tags and events. */
const SUMMARY_COLUMNS = [
  "id",
  "name",
  "status",
  "contentType",
  "startedAt",
  "endedAt",
  "latency",
  "referenceId",
  "parentReferenceId",
  "promptId",
  "model",
  "provider",
  "cost",
  "promptTokens",
  "completionTokens",
  "totalTokens",
] as const;

/**
 * Every span of a trace of the project as a summary, oldest first, in one query: a trace holds at most
 * MAX_SPANS_PER_TRACE spans, so there is nothing to page. The query names the trace only (its project was
 * checked on the trace row), so that both databases serve it from the trace index, whose (startedAt, id)
 * tail gives the order.
 */
export async function getLogTraceTree(ctx: ServiceContext, { projectId, traceId }: PathOf<"getLogTraceTree">) {
  const project = await requireProject(ctx, projectId);
  const trace = await ctx.db
    .selectFrom("logTraces")
    .select("id")
    .where("id", "=", traceId)
    .where("projectId", "=", project.id)
    .executeTakeFirst();
  if (!trace) throw notFound("Trace");
  const spans: LogSpanSummary[] = await ctx.db
    .selectFrom("logSpans")
    .select(SUMMARY_COLUMNS)
    .where("traceId", "=", trace.id)
    .orderBy("startedAt", "asc")
    .orderBy("id", "asc")
    .execute();
  return { traceId: trace.id, spans };
}

/** One span of the project in full, as the span search returns it. */
export async function getLogSpan(ctx: ServiceContext, { projectId, spanId }: PathOf<"getLogSpan">): Promise<LogSpan> {
  const project = await requireProject(ctx, projectId);
  const row = await ctx.db
    .selectFrom("logSpans")
    .selectAll()
    .where("id", "=", spanId)
    .where("projectId", "=", project.id)
    .executeTakeFirst();
  if (!row) throw notFound("Span");
  const summaries = await scoreSummaries(ctx.db, "span", [row.id]);
  return toLogSpan(row, summaries.get(row.id) ?? []);
}
