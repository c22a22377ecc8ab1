/**
 * Delivery of ended entries: a bounded buffer, sent in order by a few concurrent requests. A trace's request goes
 * first; spans that ended after it wait until it is stored. A network error, 5xx or 429 keeps the entry where
 * it is and pauses sending (backoff with jitter, or the server's Retry-After), with no limit on attempts: the
 * buffer's size is the bound, and when it overflows the oldest entries are dropped. Any other 4xx fails the
 * entry at once.
 */
import { isRetryableStatus, parseRetryAfter } from "../retry.ts";
import { unrefTimer } from "../timers.ts";
import type { Ledger, MonitorError } from "./ledger.ts";
import type { SpanBody, TraceRecord } from "./records.ts";
import { type SerializedSpan, serializeSpan, spanRequestBody, traceRequest } from "./requests.ts";
import type { LogWritePath, Post } from "./transport.ts";

export interface Backoff {
  /** Ceiling of the first pause in ms; it doubles with each failure in a row. */
  baseDelayMs: number;
  /** Highest pause in ms. */
  maxDelayMs: number;
  /** Longest Retry-After honoured as sent, in ms; a longer one pauses this long. */
  maxRetryAfterMs: number;
}

export interface DeliveryOptions {
  projectId: string;
  post: Post;
  ledger: Ledger;
  maxBufferSize: number;
  maxConcurrentRequests: number;
  backoff: Backoff;
  random: () => number;
}

interface EntryBase {
  /** Order of ending; flush waits for every entry up to a number. */
  seq: number;
  /** Traces and spans the entry holds: what it adds to the buffer and the counters. */
  count: number;
  inFlight: boolean;
  /** An attempt may have been stored although no answer said so: a 409 then means it was. */
  ambiguous: boolean;
  trace: TraceRecord;
  body?: string;
}
interface TraceEntry extends EntryBase {
  kind: "trace";
  spans: SpanBody[];
}
interface SpanEntry extends EntryBase {
  kind: "span";
  span: SpanBody;
  serialized?: SerializedSpan;
}
type Entry = TraceEntry | SpanEntry;

type Outcome = "delivered" | "failed" | "dropped";

export class Delivery {
  readonly #options: DeliveryOptions;
  readonly #queue: Entry[] = [];
  readonly #waiters = new Set<{ upTo: number; resolve: () => void }>();
  #buffered = 0;
  #active = 0;
  #seq = 0;
  #draining = false;
  #pausedUntil = 0;
  #pauseTimer: ReturnType<typeof setTimeout> | undefined;
  /** Retryable failures in a row: the backoff's exponent. */
  #failures = 0;
  /** Shut down: an entry in flight then is dropped rather than retried should its attempt fail. */
  #stopped = false;
  #stopMessage = "";

  constructor(options: DeliveryOptions) {
    this.#options = options;
  }

  get buffered(): number {
    return this.#buffered;
  }

  /** The number of the last entry buffered so far. */
  get lastSeq(): number {
    return this.#seq;
  }

  enqueueTrace(trace: TraceRecord): void {
    trace.state = "queued";
    const spans = trace.spans;
    trace.spans = [];
    this.#push({ kind: "trace", trace, spans, count: 1 + spans.length, seq: 0, inFlight: false, ambiguous: false });
  }

  /** A span that ended after its trace. */
  enqueueSpan(trace: TraceRecord, span: SpanBody): void {
    this.#push({ kind: "span", trace, span, count: 1, seq: 0, inFlight: false, ambiguous: false });
  }

  /** Starts sending what is buffered, and keeps sending as requests complete until nothing is ready. */
  drain(): void {
    this.#draining = true;
    this.#pump();
  }

  /** Resolves once every entry numbered up to `upTo` has settled; `cancel` forgets the wait. */
  settled(upTo: number): { done: Promise<void>; cancel(): void } {
    let waiter: { upTo: number; resolve: () => void } | undefined;
    const done = new Promise<void>((resolve) => {
      waiter = { upTo, resolve };
      this.#waiters.add(waiter);
    });
    this.#notify();
    return { done, cancel: () => this.#waiters.delete(waiter as { upTo: number; resolve: () => void }) };
  }

  /**
   * At shutdown: drops every entry not in flight and stops the backoff timer; an entry in flight is delivered
   * if its attempt succeeds, and dropped if it would have to be retried.
   */
  dropQueued(message: string): void {
    this.#stopped = true;
    this.#stopMessage = message;
    let count = 0;
    for (const entry of this.#queue.filter((e) => !e.inFlight)) {
      count += entry.count;
      this.#remove(entry, "dropped");
    }
    if (count > 0) this.#options.ledger.drop(count, message);
    clearTimeout(this.#pauseTimer);
    this.#pauseTimer = undefined;
    this.#draining = false;
  }

  #push(entry: Entry): void {
    entry.seq = ++this.#seq;
    this.#queue.push(entry);
    this.#buffered += entry.count;
    this.#trim();
    // Half a buffer is worth sending before the next tick: waiting for it could overflow the buffer.
    if (this.#buffered * 2 >= this.#options.maxBufferSize) this.drain();
  }

  #pump(): void {
    if (!this.#draining) return;
    const wait = this.#pausedUntil - Date.now();
    if (wait > 0) {
      if (this.#pauseTimer === undefined) {
        this.#pauseTimer = setTimeout(() => {
          this.#pauseTimer = undefined;
          this.#pump();
        }, wait);
        unrefTimer(this.#pauseTimer);
      }
      return;
    }
    while (this.#active < this.#options.maxConcurrentRequests) {
      const entry = this.#nextReady();
      if (entry === undefined) break;
      entry.inFlight = true;
      this.#active++;
      void this.#send(entry).finally(() => {
        this.#active--;
        this.#pump();
      });
    }
    if (this.#active === 0) this.#draining = false;
  }

  /** The oldest entry that may be sent now; spans of a trace that was refused or dropped settle on the way. */
  #nextReady(): Entry | undefined {
    for (let i = 0; i < this.#queue.length; i++) {
      const entry = this.#queue[i] as Entry;
      if (entry.inFlight) continue;
      if (entry.kind === "trace") return entry;
      const state = entry.trace.state;
      if (state === "delivered") return entry;
      if (state === "failed" || state === "dropped") {
        this.#settle(entry, state, {
          message: `span ${entry.span.referenceId}: its trace ${entry.trace.referenceId} was ${state === "failed" ? "refused" : "dropped"}`,
          at: Date.now(),
        });
        i--;
      }
      // Otherwise its trace's request is in flight: the span waits for it.
    }
    return undefined;
  }

  async #send(entry: Entry): Promise<void> {
    let request: { path: LogWritePath; body: string } | undefined;
    try {
      request = this.#requestOf(entry);
    } catch (error) {
      // JSON.stringify refuses a BigInt or a cycle in what the application logged.
      this.#settle(entry, "failed", { message: `cannot serialize: ${messageOf(error)}`, at: Date.now() });
      return;
    }
    if (request === undefined) return;
    let response: Response;
    try {
      response = await this.#options.post(request.path, request.body);
    } catch (error) {
      entry.ambiguous = true;
      this.#retryLater(entry, undefined, { message: `network error: ${messageOf(error)}`, at: Date.now() });
      return;
    }
    if (response.ok || (response.status === 409 && entry.ambiguous)) {
      await response.body?.cancel().catch(() => undefined);
      this.#failures = 0;
      this.#settle(entry, "delivered");
      return;
    }
    const error = await errorOf(response);
    if (isRetryableStatus(response.status)) {
      if (response.status >= 500) entry.ambiguous = true;
      this.#retryLater(entry, parseRetryAfter(response.headers.get("Retry-After")), error);
    } else this.#settle(entry, "failed", error);
  }

  /**
   * The entry's request, built at its first attempt and reused by retries. A trace's spans that do not fit its
   * request become span entries right behind it; spans over the content limit are dropped. Undefined when
   * nothing of the entry is left to send.
   */
  #requestOf(entry: Entry): { path: LogWritePath; body: string } | undefined {
    const { projectId, ledger } = this.#options;
    if (entry.kind === "span") {
      if (entry.body === undefined) {
        const serialized = serializeSpan(entry.span);
        if (serialized === undefined) {
          this.#settle(entry, "dropped", tooLarge(entry.span));
          return undefined;
        }
        entry.body = spanRequestBody(projectId, entry.trace.referenceId, serialized);
      }
      return { path: "/logs/span", body: entry.body };
    }
    if (entry.body === undefined) {
      const serialized: SerializedSpan[] = [];
      for (const span of entry.spans) {
        const one = serializeSpan(span);
        if (one) serialized.push(one);
        else {
          entry.count--;
          this.#buffered--;
          ledger.drop(1, tooLarge(span).message);
        }
      }
      const { body, included, rest } = traceRequest(projectId, entry.trace.body, serialized);
      entry.body = body;
      entry.spans = [];
      entry.count = 1 + included.length;
      const followers: SpanEntry[] = rest.map((one) => ({
        kind: "span",
        trace: entry.trace,
        span: one.span,
        serialized: one,
        body: spanRequestBody(projectId, entry.trace.referenceId, one),
        count: 1,
        seq: entry.seq,
        inFlight: false,
        ambiguous: false,
      }));
      this.#queue.splice(this.#queue.indexOf(entry) + 1, 0, ...followers);
    }
    return { path: "/logs/trace", body: entry.body };
  }

  #retryLater(entry: Entry, retryAfterMs: number | undefined, error: MonitorError): void {
    const { backoff, random, ledger } = this.#options;
    entry.inFlight = false;
    if (this.#stopped) {
      ledger.error(error);
      this.#settle(entry, "dropped", { message: this.#stopMessage, at: Date.now() });
      return;
    }
    this.#failures++;
    const ceiling = Math.min(backoff.maxDelayMs, backoff.baseDelayMs * 2 ** Math.min(this.#failures - 1, 30));
    // Half the ceiling plus jitter: retries of many clients spread out, and each waits a while.
    const delay =
      retryAfterMs !== undefined
        ? Math.min(retryAfterMs, backoff.maxRetryAfterMs)
        : ceiling / 2 + random() * (ceiling / 2);
    this.#pausedUntil = Math.max(this.#pausedUntil, Date.now() + delay);
    ledger.error(error);
    this.#trim();
  }

  #settle(entry: Entry, outcome: Outcome, error?: MonitorError): void {
    this.#remove(entry, outcome);
    const { ledger } = this.#options;
    if (outcome === "delivered") ledger.delivered(entry.count);
    else if (outcome === "failed") ledger.fail(entry.count, error as MonitorError);
    else ledger.drop(entry.count, (error as MonitorError).message);
  }

  #remove(entry: Entry, outcome: Outcome): void {
    const index = this.#queue.indexOf(entry);
    if (index >= 0) this.#queue.splice(index, 1);
    this.#buffered -= entry.count;
    if (entry.kind === "trace") entry.trace.state = outcome;
    this.#notify();
  }

  /** Drops the oldest entries not in flight while the buffer holds more than its size. */
  #trim(): void {
    let dropped = 0;
    while (this.#buffered > this.#options.maxBufferSize) {
      const oldest = this.#queue.find((entry) => !entry.inFlight);
      if (oldest === undefined) break;
      dropped += oldest.count;
      this.#remove(oldest, "dropped");
    }
    if (dropped > 0) {
      this.#options.ledger.drop(
        dropped,
        `buffer full (${this.#options.maxBufferSize} entries): dropped the ${dropped} oldest`,
      );
    }
  }

  #notify(): void {
    const oldest = this.#queue[0]?.seq ?? Number.POSITIVE_INFINITY;
    for (const waiter of this.#waiters) {
      if (oldest > waiter.upTo) {
        this.#waiters.delete(waiter);
        waiter.resolve();
      }
    }
  }
}

const tooLarge = (span: SpanBody): MonitorError => ({
  message: `span ${span.referenceId}: content over 1 MB (1,048,576 bytes of JSON), which the API refuses`,
  at: Date.now(),
});

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The error an answer carries: the spec's envelope when it is one, else the status line. */
async function errorOf(response: Response): Promise<MonitorError> {
  const text = await response.text().catch(() => "");
  let envelope: { code?: unknown; message?: unknown } | undefined;
  try {
    envelope = (JSON.parse(text) as { error?: { code?: unknown; message?: unknown } }).error;
  } catch {
    envelope = undefined;
  }
  const code = typeof envelope?.code === "string" ? envelope.code : undefined;
  const message = typeof envelope?.message === "string" ? envelope.message : text.slice(0, 200) || response.statusText;
  return {
    message: `${response.status}${code ? ` ${code}` : ""}: ${message}`,
    status: response.status,
    code,
    at: Date.now(),
  };
}
