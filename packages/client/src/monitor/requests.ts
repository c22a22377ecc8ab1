/**
 * The request bodies of log writes, serialized once per entry. A trace's request carries the spans that ended with
 * it, within the API's rules for one request: at most 1,000 spans, each span's parent in the same request, no
 * span starting before the trace, a body within 32 MB. The spans that do not fit go by POST /logs/span (which
 * checks none of those cross-span rules). A span whose content is over 1 MB can never be stored: it is set aside.
 */
import { fitsBytes, MAX_BODY_BYTES, MAX_CONTENT_BYTES, MAX_SPANS_PER_TRACE_REQUEST, utf8Length } from "./limits.ts";
import type { SpanBody, TraceBody } from "./records.ts";

/** A span as JSON (without the trace it joins), and its size in UTF-8 bytes. */
export interface SerializedSpan {
  span: SpanBody;
  json: string;
  bytes: number;
}

/** Serializes a span, or returns undefined when its content is over the API's 1 MB limit. */
export function serializeSpan(span: SpanBody): SerializedSpan | undefined {
  const { content, ...rest } = span;
  // The limit is on the content's own JSON: the string as given, or the object as compact JSON.
  const contentJson = JSON.stringify(content);
  if (!fitsBytes(typeof content === "string" ? content : contentJson, MAX_CONTENT_BYTES)) return undefined;
  const restJson = JSON.stringify(rest);
  const json = `{"content":${contentJson}${restJson === "{}" ? "}" : `,${restJson.slice(1)}`}`;
  return { span, json, bytes: json.length * 3 <= MAX_BODY_BYTES ? json.length : utf8Length(json) };
}

/** What goes into a trace's request, and the spans left for POST /logs/span. */
export interface TraceRequest {
  body: string;
  included: SerializedSpan[];
  rest: SerializedSpan[];
}

/** Room left for spans in a body: the trace and the envelope take at most a few hundred KB (100 attributes of 4 KB). */
const SPAN_BYTES_BUDGET = MAX_BODY_BYTES - 1024 * 1024;

export function traceRequest(projectId: string, trace: TraceBody, spans: SerializedSpan[]): TraceRequest {
  const included: SerializedSpan[] = [];
  const rest: SerializedSpan[] = [];
  const inRequest = new Set<string>();
  let bytes = 0;
  // Parents before children, so that a child joins the request only when its parent did.
  for (const candidate of byDepth(spans)) {
    const { span } = candidate;
    const fits =
      included.length < MAX_SPANS_PER_TRACE_REQUEST &&
      bytes + candidate.bytes + 1 <= SPAN_BYTES_BUDGET &&
      span.startedAt >= trace.startedAt &&
      (span.parentReferenceId === undefined || inRequest.has(span.parentReferenceId));
    if (fits) {
      included.push(candidate);
      if (span.referenceId !== undefined) inRequest.add(span.referenceId);
      bytes += candidate.bytes + 1;
    } else rest.push(candidate);
  }
  const spansJson = included.length === 0 ? "" : `,"spans":[${included.map((s) => s.json).join(",")}]`;
  const body = `{"projectId":${JSON.stringify(projectId)},"trace":${JSON.stringify(trace)}${spansJson}}`;
  return { body, included, rest };
}

/** The body of POST /logs/span for a span of the trace `traceReferenceId`. */
export function spanRequestBody(projectId: string, traceReferenceId: string, span: SerializedSpan): string {
  return `{"projectId":${JSON.stringify(projectId)},"span":{"traceReferenceId":${JSON.stringify(traceReferenceId)},${span.json.slice(1)}}`;
}

/** Spans ordered by their depth among `spans` (stable otherwise); a span whose parent is not among them comes last. */
function byDepth(spans: SerializedSpan[]): SerializedSpan[] {
  const byReference = new Map<string, SpanBody>();
  for (const { span } of spans) if (span.referenceId !== undefined) byReference.set(span.referenceId, span);
  const depths = new Map<SpanBody, number>();
  const depthOf = (span: SpanBody): number => {
    let depth = 0;
    const seen = new Set<SpanBody>();
    for (let current = span; current.parentReferenceId !== undefined; depth++) {
      const parent = byReference.get(current.parentReferenceId);
      // An absent parent (it ends later) or a cycle of reference ids: the span cannot go with this request.
      if (parent === undefined || seen.has(parent)) return Number.POSITIVE_INFINITY;
      seen.add(current);
      current = parent;
    }
    return depth;
  };
  for (const { span } of spans) depths.set(span, depthOf(span));
  return spans
    .map((serialized, index) => ({ serialized, index, depth: depths.get(serialized.span) as number }))
    .sort((a, b) => a.depth - b.depth || a.index - b.index)
    .map(({ serialized }) => serialized);
}
