/** What the monitor keeps of a trace and its spans between the application's calls and their delivery. */
import type { Schemas } from "../types.ts";

/** The trace as POST /logs/trace takes it; filled in by logTrace, update and end. */
export type TraceBody = Schemas["LogTraceInput"];
/** A span as POST /logs/trace takes it (POST /logs/span adds the trace's reference id when it is sent). */
export type SpanBody = Schemas["LogSpanInput"];

/**
 * Where a trace is on its way to the server. `open`: not ended, its ended spans wait in `spans`; `queued`: its
 * request is buffered or in flight; then `delivered`, `failed` (refused by the server) or `dropped` (never sent).
 * Spans that end after their trace wait until it is `delivered`, since POST /logs/span needs the trace stored.
 */
export type TraceState = "open" | "queued" | "delivered" | "failed" | "dropped";

export interface TraceRecord {
  body: TraceBody;
  /** Always set: the monitor generates one when the application gives none, so spans can name their trace. */
  referenceId: string;
  state: TraceState;
  /** Spans that ended while the trace was open: they go with the trace's own request. */
  spans: SpanBody[];
  /** Every span logged in the trace so far (a trace holds at most MAX_SPANS_PER_TRACE). */
  spanCount: number;
}
