/** Stored traces and spans as search returns them (LogTrace, LogSpan): every field present, JSON parsed. */
import type { schemas } from "@pharos/contract";
import type { Database } from "../../store/schema.ts";
import { fromJson } from "../json.ts";
import type { LogScoreSummary } from "../scores/score-summaries.ts";

export type LogTrace = schemas.LogTrace;
export type LogSpan = schemas.LogSpan;

/** `scores`: the trace's score summary (score-summaries.ts). */
export function toLogTrace(row: Database["logTraces"], scores: LogScoreSummary[]): LogTrace {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    startedAt: row.startedAt,
    endedAt: row.endedAt,
    latency: row.latency,
    referenceId: row.referenceId,
    sessionId: row.sessionId,
    userId: row.userId,
    attributes: fromJson<LogTrace["attributes"]>(row.attributes),
    tags: fromJson<string[]>(row.tags),
    totalCost: row.totalCost,
    totalInputTokens: row.totalInputTokens,
    totalOutputTokens: row.totalOutputTokens,
    spanIds: fromJson<string[]>(row.spanIds),
    scores,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** `scores`: the span's score summary (score-summaries.ts). */
export function toLogSpan(row: Database["logSpans"], scores: LogScoreSummary[]): LogSpan {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    contentType: row.contentType,
    startedAt: row.startedAt,
    endedAt: row.endedAt,
    latency: row.latency,
    logTraceId: row.traceId,
    promptId: row.promptId,
    deploymentId: row.deploymentId,
    referenceId: row.referenceId,
    parentReferenceId: row.parentReferenceId,
    sessionId: row.sessionId,
    cost: row.cost,
    promptTokens: row.promptTokens,
    completionTokens: row.completionTokens,
    totalTokens: row.totalTokens,
    content: row.content,
    parsedContent: fromJson<LogSpan["parsedContent"]>(row.content),
    attributes: fromJson<LogSpan["attributes"]>(row.attributes),
    tags: fromJson<string[]>(row.tags),
    events: fromJson<string[]>(row.events),
    scores,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
