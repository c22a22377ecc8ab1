/**
 * The application's side of the monitor: traces and spans it logs, nests, updates and ends. Each call only
 * records fields in memory and returns; nothing here waits for the network or throws. Ending hands the entry to
 * the monitor (MonitorSink), which delivers it in the background.
 */
import type { LogAttributes, LogSpanContent, SpanStatus, TraceStatus } from "../types.ts";
import type { SpanBody, TraceBody, TraceRecord } from "./records.ts";

export interface TraceOptions {
  name: string;
  /** Default `unknown`; set it with update() or end() once the outcome is known. */
  status?: TraceStatus;
  sessionId?: string;
  /** The end user of your application the trace serves (listed with its totals by GET /projects/{projectId}/users). */
  userId?: string;
  /** Your own unique id of the trace in the project; one is generated when omitted. */
  referenceId?: string;
  tags?: string[];
  attributes?: LogAttributes;
  /** Unix ms; default now. */
  startedAt?: number;
}

/** Fields given replace the current ones, except `attributes`, which are merged key by key. */
export interface TraceUpdate {
  name?: string;
  status?: TraceStatus;
  sessionId?: string;
  userId?: string;
  tags?: string[];
  attributes?: LogAttributes;
}

export interface TraceEnd extends TraceUpdate {
  /** Unix ms; default now (at least 1 ms after the start, as the API requires). */
  endedAt?: number;
}

export interface SpanOptions {
  name: string;
  /** What the step was (a Model call, a Tool call, …), or its JSON text; default `{type: "Other"}` with `{}`s. */
  content?: LogSpanContent | string;
  /** Default `unknown`. */
  status?: SpanStatus;
  promptId?: string;
  deploymentId?: string;
  /** Grade this span with the active evaluators of `promptId`. */
  runEvaluation?: boolean;
  /** Your own id of the span, unique in its trace; one is generated when omitted. */
  referenceId?: string;
  sessionId?: string;
  tags?: string[];
  attributes?: LogAttributes;
  events?: string[];
  /** Unix ms; default now. */
  startedAt?: number;
}

/** Fields given replace the current ones, except `attributes` (merged) and `events` (appended). */
export type SpanUpdate = Partial<Omit<SpanOptions, "referenceId" | "startedAt">>;

export interface SpanEnd extends SpanUpdate {
  /** Unix ms; default now (at least 1 ms after the start, as the API requires). */
  endedAt?: number;
}

/** What handles need of their monitor. */
export interface MonitorSink {
  newReferenceId(): string;
  traceEnded(trace: TraceRecord): void;
  spanEnded(trace: TraceRecord, span: SpanBody): void;
  /** Records an application mistake (never thrown): a span logged on a closed monitor, an end called twice. */
  misuse(message: string): void;
}

const DEFAULT_CONTENT: LogSpanContent = { type: "Other", input: "{}", output: "{}" };

/** `endedAt`, or now, at least 1 ms after `startedAt` (the API wants a strictly positive duration). */
const endTime = (startedAt: number, endedAt: number | undefined) => Math.max(endedAt ?? Date.now(), startedAt + 1);

export class Trace {
  readonly #record: TraceRecord;
  readonly #sink: MonitorSink;

  /** @internal Created by `monitor.logTrace`. */
  constructor(sink: MonitorSink, options: TraceOptions) {
    this.#sink = sink;
    const referenceId = options.referenceId ?? sink.newReferenceId();
    this.#record = {
      body: {
        name: options.name,
        status: options.status ?? "unknown",
        startedAt: options.startedAt ?? Date.now(),
        referenceId,
        sessionId: options.sessionId,
        userId: options.userId,
        tags: options.tags,
        attributes: options.attributes,
      },
      referenceId,
      state: "open",
      spans: [],
      spanCount: 0,
    };
  }

  /** The trace's reference id in Pharos (yours, or the generated one): search by it, or PATCH /logs/trace. */
  get referenceId(): string {
    return this.#record.referenceId;
  }

  logSpan(options: SpanOptions): Span {
    return new Span(this.#sink, this.#record, undefined, options);
  }

  update(update: TraceUpdate): this {
    if (this.#record.state !== "open") this.#sink.misuse(`trace ${this.referenceId} updated after it ended`);
    else applyTraceUpdate(this.#record.body, update);
    return this;
  }

  /** Ends the trace: it is sent with the spans that have ended, at the monitor's next flush. */
  end(end: TraceEnd = {}): void {
    const record = this.#record;
    if (record.state !== "open") {
      this.#sink.misuse(`trace ${this.referenceId} ended twice`);
      return;
    }
    applyTraceUpdate(record.body, end);
    record.body.endedAt = endTime(record.body.startedAt, end.endedAt);
    this.#sink.traceEnded(record);
  }
}

export class Span {
  readonly #body: SpanBody;
  readonly #trace: TraceRecord;
  readonly #sink: MonitorSink;
  #ended = false;

  /** @internal Created by `trace.logSpan` or `span.logSpan`. */
  constructor(sink: MonitorSink, trace: TraceRecord, parentReferenceId: string | undefined, options: SpanOptions) {
    this.#sink = sink;
    this.#trace = trace;
    this.#body = {
      name: options.name,
      status: options.status ?? "unknown",
      startedAt: options.startedAt ?? Date.now(),
      endedAt: 0,
      content: options.content ?? DEFAULT_CONTENT,
      referenceId: options.referenceId ?? sink.newReferenceId(),
      parentReferenceId,
      promptId: options.promptId,
      deploymentId: options.deploymentId,
      runEvaluation: options.runEvaluation,
      sessionId: options.sessionId,
      tags: options.tags,
      attributes: options.attributes,
      events: options.events,
    };
  }

  get referenceId(): string {
    return this.#body.referenceId as string;
  }

  /** A child span: its `parentReferenceId` is this span's reference id. */
  logSpan(options: SpanOptions): Span {
    return new Span(this.#sink, this.#trace, this.referenceId, options);
  }

  update(update: SpanUpdate): this {
    if (this.#ended) this.#sink.misuse(`span ${this.referenceId} updated after it ended`);
    else applySpanUpdate(this.#body, update);
    return this;
  }

  /** Ends the span: it goes with its trace's request, or on its own when the trace has already ended. */
  end(end: SpanEnd = {}): void {
    if (this.#ended) {
      this.#sink.misuse(`span ${this.referenceId} ended twice`);
      return;
    }
    this.#ended = true;
    applySpanUpdate(this.#body, end);
    this.#body.endedAt = endTime(this.#body.startedAt, end.endedAt);
    this.#sink.spanEnded(this.#trace, this.#body);
  }
}

function applyTraceUpdate(body: TraceBody, update: TraceUpdate): void {
  if (update.name !== undefined) body.name = update.name;
  if (update.status !== undefined) body.status = update.status;
  if (update.sessionId !== undefined) body.sessionId = update.sessionId;
  if (update.userId !== undefined) body.userId = update.userId;
  if (update.tags !== undefined) body.tags = update.tags;
  if (update.attributes !== undefined) body.attributes = { ...body.attributes, ...update.attributes };
}

function applySpanUpdate(body: SpanBody, update: SpanUpdate): void {
  if (update.name !== undefined) body.name = update.name;
  if (update.content !== undefined) body.content = update.content;
  if (update.status !== undefined) body.status = update.status;
  if (update.promptId !== undefined) body.promptId = update.promptId;
  if (update.deploymentId !== undefined) body.deploymentId = update.deploymentId;
  if (update.runEvaluation !== undefined) body.runEvaluation = update.runEvaluation;
  if (update.sessionId !== undefined) body.sessionId = update.sessionId;
  if (update.tags !== undefined) body.tags = update.tags;
  if (update.attributes !== undefined) body.attributes = { ...body.attributes, ...update.attributes };
  if (update.events !== undefined) body.events = [...(body.events ?? []), ...update.events];
}
