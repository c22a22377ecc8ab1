import type { schemas } from "@pharos/contract";
import { conflict, type ErrorDetail, failIfInvalid, notFound } from "../../errors.ts";
import type { ServiceContext } from "../context.ts";
import { fromJson, toJson } from "../json.ts";
import { maskContent, maskSpanInput } from "../masking/mask-logs.ts";
import { addToSpanRollups, audienceRollupRows, audienceSpans, spanRollupRows } from "../metrics/rollups.ts";
import { onlineEvaluationRows } from "../online-evaluation/enqueue.ts";
import type { BodyOf, Unread } from "../operation-input.ts";
import { MAX_SPANS_PER_TRACE, spanIndexRows, toSpanRow, totalsOf } from "./log-rows.ts";
import { checkContent } from "./span-content.ts";
import { approximateBytes } from "./write-batcher.ts";
import { contentTooLarge, resolveWriteTarget } from "./write-checks.ts";

export type CreateLogSpanResult = schemas.CreateLogSpanResponse;

const duplicateReference = (referenceId: string | undefined) =>
  conflict(`A span with referenceId "${referenceId}" already exists in the trace.`);

/**
 * The trace a span joins, by `traceId` or `traceReferenceId` (both: they must name the same trace). Returns
 * its id, or undefined when it does not exist in the project.
 */
async function findTrace(
  ctx: ServiceContext,
  projectId: string,
  span: schemas.CreateLogSpanInput,
  issues: ErrorDetail[],
): Promise<{ id: string; userId: string | null } | undefined> {
  let select = ctx.db
    .selectFrom("logTraces")
    .select(["id", "referenceId", "userId"])
    .where("projectId", "=", projectId);
  select =
    span.traceId !== undefined
      ? select.where("id", "=", span.traceId)
      : select.where("referenceId", "=", span.traceReferenceId as string);
  const trace = await select.executeTakeFirst();
  if (trace && span.traceId !== undefined && span.traceReferenceId !== undefined) {
    if (trace.referenceId !== span.traceReferenceId) {
      issues.push({ field: "span.traceReferenceId", issue: "must be the referenceId of the trace traceId names" });
    }
  }
  return trace && { id: trace.id, userId: trace.userId };
}

/**
 * Adds one span to an existing trace of the project, as a job of the log write batch: the span, its
 * attribute and tag rows, the trace's aggregates (span ids, totals) and the metrics rollups change together; answers once
 * committed.
 */
export async function createLogSpan(ctx: ServiceContext, body: BodyOf<"createLogSpan">): Promise<CreateLogSpanResult> {
  const { projectId: requestedProjectId, span: givenSpan, ...unread } = body;
  unread satisfies Unread;
  let span = givenSpan;
  const issues: ErrorDetail[] = [];
  // 1. The trace is named by traceId or traceReferenceId.
  const named = span.traceId !== undefined || span.traceReferenceId !== undefined;
  if (!named) issues.push({ field: "span.traceId", issue: "either traceId or traceReferenceId is required" });
  // 2. The span starts strictly before it ends.
  if (!(span.startedAt < span.endedAt)) {
    issues.push({ field: "span.endedAt", issue: "must be after the span's startedAt" });
  }
  let content = checkContent(span.content, "span.content", issues);

  const target = await resolveWriteTarget(ctx, requestedProjectId, [
    { field: "span", promptId: span.promptId, deploymentId: span.deploymentId },
  ]);
  const trace =
    target.projectId !== undefined && named ? await findTrace(ctx, target.projectId, span, issues) : undefined;
  const traceId = trace?.id;
  failIfInvalid([...issues, ...target.issues]);
  // 3. Content over 1 MB.
  if (content?.tooLarge) throw contentTooLarge("span.content");
  if (target.failure || target.projectId === undefined) throw target.failure;
  if (traceId === undefined || content === undefined) throw notFound("Trace");
  const projectId = target.projectId;
  // Masked before the row is built from them: nothing unmasked reaches the database.
  if (target.masker) {
    span = maskSpanInput(target.masker, span);
    content = maskContent(target.masker, content);
    if (content.tooLarge) throw contentTooLarge("span.content");
  }

  const now = ctx.now();
  const row = toSpanRow(
    { id: ctx.newId("span"), workspaceId: ctx.principal.workspaceId, projectId, traceId, now },
    span,
    content,
  );
  const index = spanIndexRows(row, span);
  const queued = await onlineEvaluationRows(ctx, [{ row, input: span, traceUserId: trace?.userId ?? null }]);

  try {
    await ctx.logWrites.submit(
      async (db) => {
        const select = db
          .selectFrom("logTraces")
          .select(["spanIds", "totalCost", "totalInputTokens", "totalOutputTokens", "userId", "sessionId", "tags"])
          .where("id", "=", traceId);
        // Another replica may add a span to the same trace: hold its row until the batch commits.
        const trace = await ctx.store.sql.locks.forUpdate(select).executeTakeFirst();
        if (!trace) throw notFound("Trace");
        const spanIds = fromJson<string[]>(trace.spanIds);
        if (spanIds.length >= MAX_SPANS_PER_TRACE) {
          throw conflict(`The trace already holds ${MAX_SPANS_PER_TRACE.toLocaleString("en")} spans, the most it may.`);
        }
        // Checked here, under the trace's lock: on PostgreSQL no unique index can say it, since a partitioned
        // table's unique keys must include its partition key, startedAt (ADR 0027).
        if (span.referenceId !== undefined) {
          const taken = await db
            .selectFrom("logSpans")
            .select("id")
            .where("traceId", "=", traceId)
            .where("referenceId", "=", span.referenceId)
            .executeTakeFirst();
          if (taken) throw duplicateReference(span.referenceId);
        }
        await ctx.store.insertRows(db, "logSpans", [row]);
        await db
          .updateTable("logTraces")
          .set({ spanIds: toJson([...spanIds, row.id]), ...totalsOf([row], trace), updatedAt: now })
          .where("id", "=", traceId)
          .execute();
        await ctx.store.insertRows(db, "logAttributes", index.attributes);
        await ctx.store.insertRows(db, "logTags", index.tags);
        if (queued.length > 0) await ctx.store.insertRows(db, "onlineEvaluations", queued);
        // Counted under the trace's user, session and tags as they are now (the row is held: they cannot change).
        const audience = { userId: trace.userId, sessionId: trace.sessionId, tags: fromJson<string[]>(trace.tags) };
        await addToSpanRollups(db, spanRollupRows([row]), {
          audience: audienceRollupRows([{ spans: audienceSpans([row]), audience }]),
        });
      },
      approximateBytes([row, index, queued]),
    );
  } catch (error) {
    // The only unique key a new span can clash with is its trace's span referenceIds (SQLite's index).
    if (ctx.store.isUniqueViolation(error)) throw duplicateReference(span.referenceId);
    throw error;
  }
  if (queued.length > 0) ctx.wakeWorkers();
  return { spanId: row.id };
}
