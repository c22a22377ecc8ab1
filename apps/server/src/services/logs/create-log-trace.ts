import type { schemas } from "@pharos/contract";
import { conflict, type ErrorDetail, failIfInvalid } from "../../errors.ts";
import type { ServiceContext } from "../context.ts";
import { toJson } from "../json.ts";
import { maskContent, maskSpanInput, maskTraceInput } from "../masking/mask-logs.ts";
import { audienceSpans } from "../metrics/rollups.ts";
import { onlineEvaluationRows } from "../online-evaluation/enqueue.ts";
import type { BodyOf, Unread } from "../operation-input.ts";
import {
  type AttributeRow,
  attributeRows,
  type SpanRow,
  spanIndexRows,
  type TagRow,
  type TraceRow,
  tagRows,
  toSpanRow,
  totalsOf,
  uniqueTags,
} from "./log-rows.ts";
import { type CheckedContent, checkContent } from "./span-content.ts";
import type { Inserts } from "./write-batcher.ts";
import { contentTooLarge, resolveWriteTarget } from "./write-checks.ts";

export type CreateLogTraceResult = schemas.CreateLogTraceResponse;

/** The six rules of createLogTrace, each breach one detail. */
function checkTraceRules(
  trace: schemas.LogTraceInput,
  spans: readonly schemas.LogSpanInput[],
  issues: ErrorDetail[],
): void {
  // 1. The trace starts strictly before it ends, when the end is given.
  if (trace.endedAt !== undefined && !(trace.startedAt < trace.endedAt)) {
    issues.push({ field: "trace.endedAt", issue: "must be after trace.startedAt" });
  }
  const firstWithReference = new Map<string, number>();
  spans.forEach((span, index) => {
    // 2. Each span starts strictly before it ends.
    if (!(span.startedAt < span.endedAt)) {
      issues.push({ field: `spans.${index}.endedAt`, issue: "must be after the span's startedAt" });
    }
    // 3. No span starts before its trace.
    if (span.startedAt < trace.startedAt) {
      issues.push({ field: `spans.${index}.startedAt`, issue: "must not be before trace.startedAt" });
    }
    // 4. Span referenceIds are unique within the request.
    if (span.referenceId !== undefined) {
      const first = firstWithReference.get(span.referenceId);
      if (first === undefined) firstWithReference.set(span.referenceId, index);
      else issues.push({ field: `spans.${index}.referenceId`, issue: `duplicates the referenceId of spans.${first}` });
    }
  });
  // 5. Every parentReferenceId names another span of the request.
  spans.forEach((span, index) => {
    if (span.parentReferenceId === undefined) return;
    const parent = spans.some((other, at) => at !== index && other.referenceId === span.parentReferenceId);
    if (!parent) {
      issues.push({
        field: `spans.${index}.parentReferenceId`,
        issue: "must be the referenceId of another span of this request",
      });
    }
  });
  // 6. Spans with referenceIds need a trace with one.
  if (trace.referenceId === undefined && firstWithReference.size > 0) {
    issues.push({ field: "trace.referenceId", issue: "is required when a span has a referenceId" });
  }
}

/**
 * Stores a trace and its spans in one transaction (a job of the log write batch), with the trace's
 * aggregates, the indexed attribute and tag rows and the metrics rollups; answers once committed.
 */
export async function createLogTrace(
  ctx: ServiceContext,
  body: BodyOf<"createLogTrace">,
): Promise<CreateLogTraceResult> {
  const { projectId: requestedProjectId, trace: givenTrace, spans: givenSpans, ...unread } = body;
  unread satisfies Unread;
  let trace = givenTrace;
  let spans = givenSpans ?? [];
  const issues: ErrorDetail[] = [];
  checkTraceRules(trace, spans, issues);
  let contents = spans.map((span, index) => checkContent(span.content, `spans.${index}.content`, issues));

  const target = await resolveWriteTarget(
    ctx,
    requestedProjectId,
    spans.map((span, index) => ({ field: `spans.${index}`, promptId: span.promptId, deploymentId: span.deploymentId })),
  );
  failIfInvalid([...issues, ...target.issues]);
  const oversized = contents.findIndex((content) => content?.tooLarge);
  if (oversized >= 0) throw contentTooLarge(`spans.${oversized}.content`);
  if (target.failure || target.projectId === undefined) throw target.failure;
  const projectId = target.projectId;
  // Masked before any row is built from them: nothing unmasked reaches the database.
  const masker = target.masker;
  if (masker) {
    trace = maskTraceInput(masker, trace);
    spans = spans.map((span) => maskSpanInput(masker, span));
    contents = contents.map((content) => content && maskContent(masker, content));
    const grown = contents.findIndex((content) => content?.tooLarge);
    if (grown >= 0) throw contentTooLarge(`spans.${grown}.content`);
  }

  const now = ctx.now();
  const traceId = ctx.newId("trace");
  const workspaceId = ctx.principal.workspaceId;
  const spanRows: SpanRow[] = spans.map((span, index) =>
    toSpanRow({ id: ctx.newId("span"), workspaceId, projectId, traceId, now }, span, contents[index] as CheckedContent),
  );
  const tags = uniqueTags(trace.tags);
  // An omitted end is the time of the write; a client clock ahead of the server's gives latency 0.
  const endedAt = trace.endedAt ?? Math.max(now, trace.startedAt);
  const traceRow: TraceRow = {
    id: traceId,
    workspaceId,
    projectId,
    name: trace.name,
    status: trace.status,
    startedAt: trace.startedAt,
    endedAt,
    latency: endedAt - trace.startedAt,
    referenceId: trace.referenceId ?? null,
    sessionId: trace.sessionId ?? null,
    userId: trace.userId ?? null,
    attributes: toJson(trace.attributes ?? {}),
    tags: toJson(tags),
    spanIds: toJson(spanRows.map((span) => span.id)),
    ...totalsOf(spanRows),
    createdAt: now,
    updatedAt: now,
  };

  const owner = { projectId, ownerKind: "trace" as const, ownerId: traceId, startedAt: trace.startedAt };
  const attributes: AttributeRow[] = attributeRows(owner, trace.attributes);
  const tagIndex: TagRow[] = tagRows(owner, tags);
  spans.forEach((span, index) => {
    const rows = spanIndexRows(spanRows[index] as SpanRow, span);
    attributes.push(...rows.attributes);
    tagIndex.push(...rows.tags);
  });

  const inserts: Inserts = [
    { table: "logTraces", rows: [traceRow] },
    { table: "logSpans", rows: spanRows },
    { table: "logAttributes", rows: attributes },
    { table: "logTags", rows: tagIndex },
  ];
  const queued = await onlineEvaluationRows(
    ctx,
    spanRows.map((row, index) => ({
      row,
      input: spans[index] as schemas.LogSpanInput,
      traceUserId: traceRow.userId,
    })),
  );
  if (queued.length > 0) inserts.push({ table: "onlineEvaluations", rows: queued });
  inserts.push({
    table: "newTraceRollups",
    rows: [
      {
        projectId,
        name: traceRow.name,
        startedAt: traceRow.startedAt,
        userId: traceRow.userId,
        sessionId: traceRow.sessionId,
        tags,
        spans: audienceSpans(spanRows),
      },
    ],
  });
  try {
    await ctx.logWrites.submitInserts(inserts);
  } catch (error) {
    // The only unique key a new trace can clash with is its project's referenceId.
    if (ctx.store.isUniqueViolation(error)) {
      throw conflict(`A trace with referenceId "${trace.referenceId}" already exists in the project.`);
    }
    throw error;
  }
  if (queued.length > 0) ctx.wakeWorkers();
  return { traceId, spanIds: spanRows.map((span) => span.id) };
}
