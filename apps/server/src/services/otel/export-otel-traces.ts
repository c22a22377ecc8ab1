/**
 * OTLP trace ingestion (`POST /otel/v1/traces`): the decoded request's spans become Pharos spans, one Pharos
 * trace per OTel trace id (its referenceId the hex trace id), written by ONE job of the log write batch, so a
 * request is stored whole or not at all and acknowledged once committed, like `POST /logs/trace`.
 *
 * Spans of a trace arrive in any order over many requests: the first creates the trace (`pending`, named after
 * that span, spanning its spans); later ones attach to it under the trace row's lock; the root span (no
 * parent) sets the trace's name, times and status when it arrives. A trace is `pending` exactly until then,
 * since a root's status is never `pending`.
 */
import type { OtlpTraceRequest } from "@pharos/otlp";
import type { Kysely } from "kysely";
import { invalid } from "../../errors.ts";
import type { Database } from "../../store/schema.ts";
import type { ServiceContext } from "../context.ts";
import { fromJson, toJson } from "../json.ts";
import {
  type AttributeRow,
  MAX_SPANS_PER_TRACE,
  type SpanRow,
  spanIndexRows,
  type TagRow,
  type TraceRow,
  toSpanRow,
  totalsOf,
  zeroTotals,
} from "../logs/log-rows.ts";
import { approximateBytes, type Inserts } from "../logs/write-batcher.ts";
import { resolveWriteTarget } from "../logs/write-checks.ts";
import { maskContent, maskSpanInput } from "../masking/mask-logs.ts";
import type { Masker } from "../masking/masking-rules.ts";
import {
  AUDIENCE_SPAN_COLUMNS,
  type Audience,
  addToSpanRollups,
  addToTraceDimensionRollups,
  addToTraceRollups,
  audienceRollupRows,
  audienceSpans,
  type NewTraceRollups,
  spanRollupRows,
  traceDimensionRollupRows,
  traceRollupRows,
} from "../metrics/rollups.ts";
import { type OnlineEvaluator, onlineEvaluationRows, onlineEvaluatorsFor } from "../online-evaluation/enqueue.ts";
import { type MappedSpan, mapSpan, rejectionOf } from "./otel-span.ts";
import { addOriginAttributes, type OriginAttributeRow, originSplitter, type SplitAttributes } from "./span-origins.ts";

export interface ExportOtelTracesInput {
  /** The `x-pharos-project-id` header, when sent. */
  projectId: string | undefined;
  request: OtlpTraceRequest;
}

export interface ExportOtelTracesResult {
  rejectedSpans: number;
  /** Why, for the first few rejected spans ("" when none were). */
  errorMessage: string;
}

const PROJECT_HOW_TO =
  "Set the project: send the header x-pharos-project-id (OTEL_EXPORTER_OTLP_HEADERS=" +
  '"Authorization=Bearer <key>,x-pharos-project-id=<project id>"), or the resource attribute ' +
  "pharos.project.id (OTEL_RESOURCE_ATTRIBUTES=pharos.project.id=<project id>).";

/** The most rejection reasons the response spells out; the count covers all. */
const MAX_REASONS = 5;

interface TraceGroup {
  projectId: string;
  traceReference: string;
  spans: (MappedSpan & { id: string; origin: SplitAttributes })[];
}

export async function exportOtelTraces(
  ctx: ServiceContext,
  input: ExportOtelTracesInput,
): Promise<ExportOtelTracesResult> {
  // 1. Every resource's project: the header, else its pharos.project.id attribute; neither is a 400.
  const projects = input.request.resourceSpans.map((resourceSpans, index) => {
    const attribute = resourceSpans.resource.get("pharos.project.id");
    const projectId = input.projectId ?? (typeof attribute === "string" ? attribute : undefined);
    const hasSpans = resourceSpans.scopeSpans.some((scope) => scope.spans.length > 0);
    if (projectId === undefined && hasSpans) {
      throw invalid(`resourceSpans.${index}.resource.attributes`, `no project. ${PROJECT_HOW_TO}`);
    }
    return projectId;
  });
  // 2. Each project exists in the workspace and the key may write to it (404 / 403 as for POST /logs/trace).
  const maskers = new Map<string, Masker | undefined>();
  for (const projectId of new Set(projects)) {
    if (projectId === undefined) continue;
    const target = await resolveWriteTarget(ctx, projectId, []);
    if (target.failure || target.projectId === undefined) throw target.failure;
    maskers.set(projectId, target.masker);
  }

  // 3. Map the spans, grouped by project and trace; spans that cannot be stored are rejected one by one.
  const reasons: string[] = [];
  let rejectedSpans = 0;
  const groups = new Map<string, TraceGroup>();
  const splitOrigin = originSplitter();
  input.request.resourceSpans.forEach((resourceSpans, resourceIndex) => {
    const projectId = projects[resourceIndex] as string;
    resourceSpans.scopeSpans.forEach((scopeSpans, scopeIndex) => {
      scopeSpans.spans.forEach((span, spanIndex) => {
        const rejection = rejectionOf(span);
        if (rejection !== undefined) {
          rejectedSpans += 1;
          if (reasons.length < MAX_REASONS) {
            reasons.push(`resourceSpans.${resourceIndex}.scopeSpans.${scopeIndex}.spans.${spanIndex}: ${rejection}`);
          }
          return;
        }
        const key = `${projectId}\n${span.traceId}`;
        const group = groups.get(key) ?? { projectId, traceReference: span.traceId, spans: [] };
        const mapped = mapSpan(span, resourceSpans.resource, scopeSpans.scope);
        // Masked before any row is built from it: nothing unmasked reaches the database.
        const masker = maskers.get(projectId);
        // Ids (the user, the prompt and deployment named) are kept, as masking keeps ids.
        const stored = masker
          ? { ...mapped, input: maskSpanInput(masker, mapped.input), content: maskContent(masker, mapped.content) }
          : mapped;
        const origin = splitOrigin(projectId, stored.input.attributes ?? {});
        group.spans.push({ ...stored, id: ctx.newId("span"), origin });
        groups.set(key, group);
      });
    });
  });

  // 4. The prompts and deployments the spans name, when they are of the project; the evaluators of those prompts
  // (read now: inside the write's transaction, the spans are queued for evaluation without a read).
  await linkPrompts(ctx, groups);
  const evaluators = await onlineEvaluatorsFor(
    ctx,
    [...groups.values()].flatMap((group) => group.spans.map((span) => span.input)),
  );

  // 5. One job of the write batch stores every trace of the request: rows when every trace is new (the batch
  // merges them with other new traces' rows, as for POST /logs/trace), else work that attaches spans. Which
  // it is, the batch tells (one read for all its jobs' traces): a request does not read before it writes.
  // Either way the spans asking for evaluation are queued in the same transaction, as native writes do.
  let overCapacity = 0;
  let queued = 0;
  if (groups.size > 0) {
    const work = async (db: Kysely<Database>) => {
      let refused = 0;
      queued = 0;
      for (const group of groups.values()) {
        const stored = await storeTrace(ctx, db, group, evaluators);
        refused += stored.refused;
        queued += stored.queued;
      }
      return refused;
    };
    // The pending bytes a job of work counts (an insert-only job counts its rows'): walked only when needed.
    const bytes = () => approximateBytes([...groups.values()]);
    try {
      if (fitNewTraces(groups)) {
        const inserts = await newTracesInserts(ctx, groups, evaluators);
        const traces = [...groups.values()].map(({ projectId, traceReference }) => ({
          projectId,
          referenceId: traceReference,
        }));
        const refused = await ctx.logWrites.submitNewTraces(inserts, traces, work);
        if (refused === undefined) {
          queued = inserts.find((insert) => insert.table === "onlineEvaluations")?.rows.length ?? 0;
        } else overCapacity = refused;
      } else overCapacity = await ctx.logWrites.submit(work, bytes());
    } catch (error) {
      // A trace was created after the batch looked (by another replica: its referenceId is unique in the
      // project): once, again, as work; the trace now exists and the spans attach to it.
      if (!ctx.store.isUniqueViolation(error)) throw error;
      overCapacity = await ctx.logWrites.submit(work, bytes());
    }
  }
  if (queued > 0) ctx.wakeWorkers();
  if (overCapacity > 0) {
    rejectedSpans += overCapacity;
    reasons.push(`${overCapacity} spans beyond the ${MAX_SPANS_PER_TRACE.toLocaleString("en")} a trace may hold`);
  }
  return {
    rejectedSpans,
    errorMessage: rejectedSpans === 0 ? "" : `${rejectedSpans} spans rejected: ${reasons.join("; ")}`.slice(0, 4096),
  };
}

/**
 * Sets each span's `promptId` and `deploymentId` from its `pharos.prompt.id` / `pharos.deployment.id` when they
 * name a prompt / deployment of the span's project (a deployment: of the span's prompt, when it names one), as
 * a native write requires; otherwise they stay attributes only. Never a rejection: an exporter cannot act on one.
 */
async function linkPrompts(ctx: ServiceContext, groups: Map<string, TraceGroup>): Promise<void> {
  const names = (span: TraceGroup["spans"][number]) =>
    span.promptReference !== undefined || span.deploymentReference !== undefined;
  // Most exports name none: they pay no lookup.
  if (![...groups.values()].some((group) => group.spans.some(names))) return;
  const byProject = new Map<string, { prompts: Set<string>; deployments: Set<string> }>();
  for (const group of groups.values()) {
    const named = byProject.get(group.projectId) ?? { prompts: new Set<string>(), deployments: new Set<string>() };
    for (const span of group.spans) {
      if (span.promptReference !== undefined) named.prompts.add(span.promptReference);
      if (span.deploymentReference !== undefined) named.deployments.add(span.deploymentReference);
    }
    byProject.set(group.projectId, named);
  }
  const found = new Map<string, { prompts: Set<string>; deployments: Map<string, string> }>();
  for (const [projectId, named] of byProject) {
    const prompts = new Set<string>();
    const deployments = new Map<string, string>();
    const promptIds = [...named.prompts];
    for (let at = 0; at < promptIds.length; at += 500) {
      const rows = await ctx.db
        .selectFrom("prompts")
        .select("id")
        .where("projectId", "=", projectId)
        .where("id", "in", promptIds.slice(at, at + 500))
        .execute();
      for (const row of rows) prompts.add(row.id);
    }
    const deploymentIds = [...named.deployments];
    for (let at = 0; at < deploymentIds.length; at += 500) {
      const rows = await ctx.db
        .selectFrom("deployments")
        .select(["id", "promptId"])
        .where("projectId", "=", projectId)
        .where("id", "in", deploymentIds.slice(at, at + 500))
        .execute();
      for (const row of rows) deployments.set(row.id, row.promptId);
    }
    found.set(projectId, { prompts, deployments });
  }
  for (const group of groups.values()) {
    const known = found.get(group.projectId);
    if (!known) continue;
    for (const span of group.spans) {
      const promptId =
        span.promptReference !== undefined && known.prompts.has(span.promptReference)
          ? span.promptReference
          : undefined;
      if (promptId !== undefined) span.input.promptId = promptId;
      const deployed =
        span.deploymentReference === undefined ? undefined : known.deployments.get(span.deploymentReference);
      if (deployed !== undefined && (span.promptReference === undefined || deployed === promptId)) {
        span.input.deploymentId = span.deploymentReference;
      }
    }
  }
}

/** Whether every trace's spans fit a new trace (else they are stored as work, which refuses the spans beyond). */
const fitNewTraces = (groups: Map<string, TraceGroup>) =>
  [...groups.values()].every((group) => group.spans.length <= MAX_SPANS_PER_TRACE);

/**
 * The session and end user of a trace, from its spans' `session.id` and `user.id` / `enduser.id`: the root's
 * when it carries them, else the first span's that does.
 */
function sessionAndUser(spans: readonly MappedSpan[]): { sessionId: string | null; userId: string | null } {
  const ordered = [...spans].sort(
    (a, b) => Number(a.input.parentReferenceId !== undefined) - Number(b.input.parentReferenceId !== undefined),
  );
  return {
    sessionId: ordered.find((span) => span.input.sessionId !== undefined)?.input.sessionId ?? null,
    userId: ordered.find((span) => span.userId !== undefined)?.userId ?? null,
  };
}

/** A new trace's row, from the spans that create it: the root's name, times and status, else pending. */
function newTraceRow(ctx: ServiceContext, group: TraceGroup, spans: readonly MappedSpan[], now: number): TraceRow {
  const root = spans.find((span) => span.input.parentReferenceId === undefined);
  const first = spans[0] as MappedSpan;
  const startedAt = root ? root.input.startedAt : Math.min(...spans.map((span) => span.input.startedAt));
  const endedAt = root ? root.input.endedAt : Math.max(...spans.map((span) => span.input.endedAt));
  return {
    id: ctx.newId("trace"),
    workspaceId: ctx.principal.workspaceId,
    projectId: group.projectId,
    name: (root ?? first).input.name,
    status: root ? root.input.status : "pending",
    startedAt,
    endedAt,
    latency: endedAt - startedAt,
    referenceId: group.traceReference,
    ...sessionAndUser(spans),
    attributes: toJson({}),
    tags: toJson([]),
    spanIds: toJson([]),
    ...zeroTotals(),
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * The rows of traces that are all new: each trace with its spans (a span id sent twice stored once), and the
 * queue rows of the spans asking for evaluation.
 */
async function newTracesInserts(
  ctx: ServiceContext,
  groups: Map<string, TraceGroup>,
  evaluators: ReadonlyMap<string, OnlineEvaluator[]>,
): Promise<Inserts> {
  const now = ctx.now();
  const traces: TraceRow[] = [];
  const spans: SpanRow[] = [];
  const attributes: AttributeRow[] = [];
  const tags: TagRow[] = [];
  // Each origin's rows once: the spans of one origin share them (originSplitter).
  const origins = new Set<OriginAttributeRow[]>();
  const queued: Awaited<ReturnType<typeof onlineEvaluationRows>> = [];
  const rollups: NewTraceRollups[] = [];
  for (const group of groups.values()) {
    const seen = new Set<string>();
    const unique = group.spans.filter((span) => {
      const reference = span.input.referenceId as string;
      if (seen.has(reference)) return false;
      seen.add(reference);
      return true;
    });
    const trace = newTraceRow(ctx, group, unique, now);
    const owner = { workspaceId: trace.workspaceId, projectId: group.projectId, traceId: trace.id, now };
    const rows = unique.map((span) => spanRowOf(owner, span));
    traces.push({ ...trace, spanIds: toJson(rows.map((row) => row.id)), ...totalsOf(rows) });
    spans.push(...rows);
    rollups.push({
      projectId: trace.projectId,
      name: trace.name,
      startedAt: trace.startedAt,
      userId: trace.userId,
      sessionId: trace.sessionId,
      tags: [],
      spans: audienceSpans(rows),
    });
    for (const [index, span] of unique.entries()) {
      const indexRows = spanIndexRows(rows[index] as SpanRow, { attributes: span.origin.own, tags: span.input.tags });
      attributes.push(...indexRows.attributes);
      tags.push(...indexRows.tags);
      origins.add(span.origin.originRows);
    }
    const filterable = unique.map((span, index) => ({
      row: rows[index] as SpanRow,
      input: span.input,
      traceUserId: trace.userId,
    }));
    queued.push(...(await onlineEvaluationRows(ctx, filterable, evaluators)));
  }
  return [
    { table: "logTraces", rows: traces },
    { table: "logSpans", rows: spans },
    { table: "logAttributes", rows: attributes },
    { table: "logTags", rows: tags },
    { table: "logOriginAttributes", rows: [...origins].flat() },
    ...(queued.length > 0 ? [{ table: "onlineEvaluations" as const, rows: queued }] : []),
    { table: "newTraceRollups", rows: rollups },
  ];
}

/** A span's row: its attributes all stored with it, those of its origin indexed through the origin. */
function spanRowOf(
  owner: { workspaceId: string; projectId: string; traceId: string; now: number },
  span: TraceGroup["spans"][number],
): SpanRow {
  return toSpanRow({ ...owner, id: span.id, originId: span.origin.originId }, span.input, span.content);
}

/**
 * Stores one trace's spans (creating the trace when it is new) and queues those asking for evaluation; answers
 * how many did not fit the trace and how many queue rows were written.
 */
async function storeTrace(
  ctx: ServiceContext,
  db: Kysely<Database>,
  group: TraceGroup,
  evaluators: ReadonlyMap<string, OnlineEvaluator[]>,
): Promise<{ refused: number; queued: number }> {
  const now = ctx.now();
  const { projectId, traceReference } = group;
  const selectTrace = () =>
    ctx.store.sql.locks
      .forUpdate(
        db
          .selectFrom("logTraces")
          .select([
            "id",
            "name",
            "status",
            "startedAt",
            "endedAt",
            "spanIds",
            "totalCost",
            "totalInputTokens",
            "totalOutputTokens",
            "sessionId",
            "userId",
            "tags",
          ])
          .where("projectId", "=", projectId)
          .where("referenceId", "=", traceReference),
      )
      .executeTakeFirst();
  let trace = await selectTrace();
  if (!trace) {
    // Created empty and pending: the spans below attach to it as to any trace, the root among them setting it.
    const row = { ...newTraceRow(ctx, group, group.spans, now), status: "pending" as const };
    await ctx.store.insertRows(db, "logTraces", [row]);
    await addToTraceRollups(db, traceRollupRows([row]));
    await addToTraceDimensionRollups(db, traceDimensionRollupRows([{ ...row, tags: [] }]));
    trace = await selectTrace();
    if (!trace) throw new Error("the trace just inserted is not there");
  }

  // A span exported again (a retried export) is stored once: the spans already in the trace are skipped.
  const references = [...new Set(group.spans.map((span) => span.input.referenceId as string))];
  const stored = new Set<string>();
  for (let at = 0; at < references.length; at += 500) {
    const rows = await db
      .selectFrom("logSpans")
      .select("referenceId")
      .where("traceId", "=", trace.id)
      .where("referenceId", "in", references.slice(at, at + 500))
      .execute();
    for (const row of rows) stored.add(row.referenceId as string);
  }
  const fresh = group.spans.filter((span) => {
    const reference = span.input.referenceId as string;
    if (stored.has(reference)) return false;
    stored.add(reference);
    return true;
  });
  const spanIds = fromJson<string[]>(trace.spanIds);
  const room = Math.max(0, MAX_SPANS_PER_TRACE - spanIds.length);
  const accepted = fresh.slice(0, room);
  if (accepted.length === 0) return { refused: fresh.length - accepted.length, queued: 0 };

  const owner = { workspaceId: ctx.principal.workspaceId, projectId, traceId: trace.id, now };
  const spanRows: SpanRow[] = accepted.map((span) => spanRowOf(owner, span));
  const attributes = [];
  const tags = [];
  const origins = new Set<OriginAttributeRow[]>();
  for (const [index, span] of accepted.entries()) {
    const rows = spanIndexRows(spanRows[index] as SpanRow, { attributes: span.origin.own, tags: span.input.tags });
    attributes.push(...rows.attributes);
    tags.push(...rows.tags);
    origins.add(span.origin.originRows);
  }
  // A trace that has no session or user yet takes them from the spans that name one.
  const named = sessionAndUser(accepted);
  const before: Audience = { userId: trace.userId, sessionId: trace.sessionId, tags: fromJson<string[]>(trace.tags) };
  const audience: Audience = {
    userId: trace.userId ?? named.userId,
    sessionId: trace.sessionId ?? named.sessionId,
    tags: before.tags,
  };
  const audiences: Parameters<typeof audienceRollupRows>[0][number][] = [{ spans: audienceSpans(spanRows), audience }];
  if (audience.userId !== before.userId || audience.sessionId !== before.sessionId) {
    // The spans already stored were counted under no user (or session): they move to the one that arrived.
    const stored = await db
      .selectFrom("logSpans")
      .select(AUDIENCE_SPAN_COLUMNS)
      .where("traceId", "=", trace.id)
      .execute();
    audiences.push({ spans: audienceSpans(stored), audience, before });
  }
  await ctx.store.insertRows(db, "logSpans", spanRows);
  await ctx.store.insertRows(db, "logAttributes", attributes);
  await ctx.store.insertRows(db, "logTags", tags);
  await addOriginAttributes(db, [...origins].flat());
  await addToSpanRollups(db, spanRollupRows(spanRows), { audience: audienceRollupRows(audiences) });

  // The root sets the trace's name, times and status; until it comes, the trace spans its spans.
  let { name, status, startedAt, endedAt } = trace;
  const root = status === "pending" ? accepted.find((span) => span.input.parentReferenceId === undefined) : undefined;
  if (root) {
    ({ name, status, startedAt, endedAt } = root.input);
  } else if (status === "pending") {
    for (const span of accepted) {
      startedAt = Math.min(startedAt, span.input.startedAt);
      endedAt = Math.max(endedAt as number, span.input.endedAt);
    }
  }
  // Queued with the user the trace has once this write commits (evaluator filters on userId read it).
  const traceUserId = audience.userId;
  const queued = await onlineEvaluationRows(
    ctx,
    accepted.map((span, index) => ({ row: spanRows[index] as SpanRow, input: span.input, traceUserId })),
    evaluators,
  );
  if (queued.length > 0) await ctx.store.insertRows(db, "onlineEvaluations", queued);
  if (name !== trace.name || startedAt !== trace.startedAt) {
    // The trace is counted under its name in the bucket of its start: move its count.
    await addToTraceRollups(
      db,
      traceRollupRows([
        { projectId, name: trace.name, startedAt: trace.startedAt, count: -1 },
        { projectId, name, startedAt },
      ]),
    );
  }
  // And under its user, session and tags in the bucket of its start: rows that do not change cancel out.
  await addToTraceDimensionRollups(
    db,
    traceDimensionRollupRows([
      { ...before, projectId, startedAt: trace.startedAt, count: -1 },
      { ...audience, projectId, startedAt },
    ]),
  );
  await db
    .updateTable("logTraces")
    .set({
      name,
      status,
      sessionId: audience.sessionId,
      userId: audience.userId,
      startedAt,
      endedAt,
      latency: (endedAt as number) - startedAt,
      spanIds: toJson([...spanIds, ...spanRows.map((span) => span.id)]),
      ...totalsOf(spanRows, trace),
      updatedAt: now,
    })
    .where("id", "=", trace.id)
    .execute();
  return { refused: fresh.length - accepted.length, queued: queued.length };
}
