/**
 * Fixtures of the log search tests (testing only). Traces and spans are written straight into their tables,
 * with their logAttributes / logTags side rows as the writes keep them: search only reads, and this gives the
 * tests rows the write operations cannot produce (the statuses `aborted` and `cancelled`, exact aggregates,
 * chosen start times and ties).
 */
import { createIdGenerator } from "../ids.ts";
import type { Database, LogStatus } from "../store/schema.ts";
import type { Harness } from "./harness.ts";

/** The start of the tests' time line (2024-11-21T12:00:00Z). */
export const T0 = 1_732_190_400_000;

const newId = createIdGenerator(Date.now);

type Attributes = Record<string, string | number | boolean>;

export interface TraceFixture {
  projectId?: string;
  name?: string;
  status?: LogStatus;
  startedAt?: number;
  endedAt?: number;
  referenceId?: string | null;
  sessionId?: string | null;
  userId?: string | null;
  attributes?: Attributes;
  tags?: string[];
  spanIds?: string[];
  totalCost?: number;
  totalInputTokens?: number;
  totalOutputTokens?: number;
}

export interface SpanFixture {
  name?: string;
  status?: LogStatus;
  /** The content object; its `type` is the span's contentType, its `model` / `provider` are indexed. */
  content?: Record<string, unknown>;
  startedAt?: number;
  endedAt?: number;
  promptId?: string | null;
  deploymentId?: string | null;
  referenceId?: string | null;
  parentReferenceId?: string | null;
  sessionId?: string | null;
  cost?: number | null;
  promptTokens?: number | null;
  completionTokens?: number | null;
  totalTokens?: number | null;
  attributes?: Attributes;
  tags?: string[];
  events?: string[];
}

async function insertSideRows(
  h: Harness,
  owner: { projectId: string; ownerKind: "trace" | "span"; ownerId: string; startedAt: number },
  attributes: Attributes,
  tags: string[],
): Promise<void> {
  const attributeRows: Database["logAttributes"][] = Object.entries(attributes).map(([key, value]) => ({
    ...owner,
    key,
    textValue: typeof value === "string" ? value : null,
    numberValue: typeof value === "number" ? value : null,
    booleanValue: typeof value === "boolean" ? (value ? 1 : 0) : null,
  }));
  if (attributeRows.length > 0) await h.store.db.insertInto("logAttributes").values(attributeRows).execute();
  const tagRows = [...new Set(tags)].map((tag) => ({ ...owner, tag }));
  if (tagRows.length > 0) await h.store.db.insertInto("logTags").values(tagRows).execute();
}

/** Inserts a trace (defaults: `success`, started at T0, lasting 100 ms) and returns its id. */
export async function insertTrace(h: Harness, fixture: TraceFixture = {}): Promise<string> {
  const id = newId("trace");
  const projectId = fixture.projectId ?? h.projectId;
  const startedAt = fixture.startedAt ?? T0;
  const endedAt = fixture.endedAt ?? startedAt + 100;
  const attributes = fixture.attributes ?? {};
  const tags = fixture.tags ?? [];
  await h.store.db
    .insertInto("logTraces")
    .values({
      id,
      workspaceId: h.workspaceId,
      projectId,
      name: fixture.name ?? "trace",
      status: fixture.status ?? "success",
      startedAt,
      endedAt,
      latency: endedAt - startedAt,
      referenceId: fixture.referenceId ?? null,
      sessionId: fixture.sessionId ?? null,
      userId: fixture.userId ?? null,
      attributes: JSON.stringify(attributes),
      tags: JSON.stringify([...new Set(tags)]),
      spanIds: JSON.stringify(fixture.spanIds ?? []),
      totalCost: fixture.totalCost ?? 0,
      totalInputTokens: fixture.totalInputTokens ?? 0,
      totalOutputTokens: fixture.totalOutputTokens ?? 0,
      createdAt: endedAt + 1,
      updatedAt: endedAt + 1,
    })
    .execute();
  await insertSideRows(h, { projectId, ownerKind: "trace", ownerId: id, startedAt }, attributes, tags);
  return id;
}

/** Inserts a span of the trace (defaults: an `Other` span, `success`, started at T0, 10 ms) and returns its id. */
export async function insertSpan(h: Harness, traceId: string, fixture: SpanFixture = {}): Promise<string> {
  const id = newId("span");
  const trace = await h.store.db
    .selectFrom("logTraces")
    .select(["projectId", "spanIds"])
    .where("id", "=", traceId)
    .executeTakeFirstOrThrow();
  const content = fixture.content ?? { type: "Other", input: "{}", output: "{}" };
  const startedAt = fixture.startedAt ?? T0;
  const endedAt = fixture.endedAt ?? startedAt + 10;
  const attributes = fixture.attributes ?? {};
  const tags = fixture.tags ?? [];
  const text = (value: unknown) => (typeof value === "string" ? value : null);
  await h.store.db
    .insertInto("logSpans")
    .values({
      id,
      workspaceId: h.workspaceId,
      projectId: trace.projectId,
      traceId,
      name: fixture.name ?? "span",
      status: fixture.status ?? "success",
      contentType: String(content.type),
      startedAt,
      endedAt,
      latency: endedAt - startedAt,
      promptId: fixture.promptId ?? null,
      deploymentId: fixture.deploymentId ?? null,
      referenceId: fixture.referenceId ?? null,
      parentReferenceId: fixture.parentReferenceId ?? null,
      sessionId: fixture.sessionId ?? null,
      runEvaluation: 0,
      model: text(content.model),
      provider: text(content.provider),
      cost: fixture.cost ?? null,
      promptTokens: fixture.promptTokens ?? null,
      completionTokens: fixture.completionTokens ?? null,
      totalTokens: fixture.totalTokens ?? null,
      content: JSON.stringify(content),
      attributes: JSON.stringify(attributes),
      tags: JSON.stringify([...new Set(tags)]),
      events: JSON.stringify(fixture.events ?? []),
      createdAt: endedAt + 1,
      updatedAt: endedAt + 1,
    })
    .execute();
  await h.store.db
    .updateTable("logTraces")
    .set({ spanIds: JSON.stringify([...JSON.parse(trace.spanIds), id]) })
    .where("id", "=", traceId)
    .execute();
  await insertSideRows(h, { projectId: trace.projectId, ownerKind: "span", ownerId: id, startedAt }, attributes, tags);
  return id;
}

/** A project of the harness's workspace, empty, for a test that needs exact result sets. */
export async function newProject(h: Harness, title = "Logs"): Promise<string> {
  const reply = await h.request("POST", "/projects", { body: { title } });
  if (reply.status !== 201) throw new Error(JSON.stringify(reply.body));
  return reply.body.id;
}
