/**
 * The rows a log write stores: spans with their search columns, the indexed attribute and tag rows of traces
 * and spans (owner kind, typed value, the owner's startedAt), and trace aggregates.
 */
import type { schemas } from "@pharos/contract";
import type { Database } from "../../store/schema.ts";
import { toJson } from "../json.ts";
import type { CheckedContent } from "./span-content.ts";

export type TraceRow = Database["logTraces"];
export type SpanRow = Database["logSpans"];
export type AttributeRow = Database["logAttributes"];
export type TagRow = Database["logTags"];
export type Attributes = schemas.LogAttributes;
export type AttributeValue = Attributes[string];

/** A trace holds at most this many spans (a span beyond it is 409). */
export const MAX_SPANS_PER_TRACE = 10_000;

/** The span fields a write stores (LogSpanInput; CreateLogSpanInput adds only the trace it joins). */
export type SpanInput = Omit<schemas.LogSpanInput, "content">;

/** Tags are stored once each, in order of first appearance. */
export const uniqueTags = (tags: readonly string[] = []) => [...new Set(tags)];

export function toSpanRow(
  owner: {
    id: string;
    workspaceId: string;
    projectId: string;
    traceId: string;
    now: number;
    /** The span's origin (OTLP's resource, scope and kind: otel/span-origins.ts), when it has one. */
    originId?: string | null;
  },
  span: SpanInput,
  content: CheckedContent,
): SpanRow {
  return {
    id: owner.id,
    workspaceId: owner.workspaceId,
    projectId: owner.projectId,
    traceId: owner.traceId,
    name: span.name,
    status: span.status,
    contentType: content.type,
    startedAt: span.startedAt,
    endedAt: span.endedAt,
    latency: span.endedAt - span.startedAt,
    promptId: span.promptId ?? null,
    deploymentId: span.deploymentId ?? null,
    referenceId: span.referenceId ?? null,
    parentReferenceId: span.parentReferenceId ?? null,
    sessionId: span.sessionId ?? null,
    runEvaluation: span.runEvaluation ? 1 : 0,
    model: content.model,
    provider: content.provider,
    cost: content.cost,
    promptTokens: content.promptTokens,
    completionTokens: content.completionTokens,
    totalTokens: content.totalTokens,
    content: content.json,
    attributes: toJson(span.attributes ?? {}),
    tags: toJson(uniqueTags(span.tags)),
    events: toJson(span.events ?? []),
    createdAt: owner.now,
    updatedAt: owner.now,
    originId: owner.originId ?? null,
  };
}

export interface Totals {
  totalCost: number;
  totalInputTokens: number;
  totalOutputTokens: number;
}

/** What spans add to their trace's totals: Model spans only (a ModelStream chunk's parent holds its numbers). */
export function totalsOf(spans: readonly SpanRow[], start: Totals = zeroTotals()): Totals {
  const totals: Totals = {
    totalCost: start.totalCost,
    totalInputTokens: start.totalInputTokens,
    totalOutputTokens: start.totalOutputTokens,
  };
  for (const span of spans) {
    if (span.contentType !== "Model") continue;
    totals.totalCost += span.cost ?? 0;
    totals.totalInputTokens += span.promptTokens ?? 0;
    totals.totalOutputTokens += span.completionTokens ?? 0;
  }
  return totals;
}

export const zeroTotals = (): Totals => ({ totalCost: 0, totalInputTokens: 0, totalOutputTokens: 0 });

interface Owner {
  projectId: string;
  ownerKind: "trace" | "span";
  ownerId: string;
  startedAt: number;
}

/** One typed row per attribute: exactly one of the value columns is set. */
export function attributeRow(owner: Owner, key: string, value: AttributeValue): AttributeRow {
  return {
    projectId: owner.projectId,
    ownerKind: owner.ownerKind,
    ownerId: owner.ownerId,
    key,
    textValue: typeof value === "string" ? value : null,
    numberValue: typeof value === "number" ? value : null,
    booleanValue: typeof value === "boolean" ? (value ? 1 : 0) : null,
    startedAt: owner.startedAt,
  };
}

export const attributeRows = (owner: Owner, attributes: Attributes = {}) =>
  Object.entries(attributes).map(([key, value]) => attributeRow(owner, key, value));

export const tagRow = (owner: Owner, tag: string): TagRow => ({
  projectId: owner.projectId,
  ownerKind: owner.ownerKind,
  ownerId: owner.ownerId,
  tag,
  startedAt: owner.startedAt,
});

export const tagRows = (owner: Owner, tags: readonly string[]) => tags.map((tag) => tagRow(owner, tag));

/** The attribute and tag rows of a stored span. */
export function spanIndexRows(
  span: SpanRow,
  input: Pick<SpanInput, "attributes" | "tags">,
): { attributes: AttributeRow[]; tags: TagRow[] } {
  const owner: Owner = { projectId: span.projectId, ownerKind: "span", ownerId: span.id, startedAt: span.startedAt };
  return { attributes: attributeRows(owner, input.attributes), tags: tagRows(owner, uniqueTags(input.tags)) };
}
