/**
 * `initMonitor`: buffered, background delivery of traces and spans. The application's calls only record in
 * memory (handles.ts); delivery.ts sends what has ended, at every tick of `flushIntervalMs` or sooner when the
 * buffer fills. Nothing the monitor does throws into the application: failures are counted in `status()`.
 */
import type { ClientOptions } from "../client.ts";
import { unrefTimer } from "../timers.ts";
import { type Backoff, Delivery } from "./delivery.ts";
import { onBeforeExit } from "./exit-hook.ts";
import { type MonitorSink, Trace, type TraceOptions } from "./handles.ts";
import { referenceIdGenerator } from "./ids.ts";
import { Ledger, type MonitorError, type MonitorStatus } from "./ledger.ts";
import { MAX_SPANS_PER_TRACE } from "./limits.ts";
import { createTransport } from "./transport.ts";

export interface MonitorOptions {
  /** The project the traces are recorded in. */
  projectId: string;
  /** How often ended entries are sent, in ms. Default 1,000. */
  flushIntervalMs?: number;
  /**
   * Entries (a trace and each span count one) kept while they wait to be sent. Past it, the oldest are dropped.
   * Sending starts before the next tick once half of it is filled. Default 1,000.
   */
  maxBufferSize?: number;
  /** Requests in flight at once. Default 4. */
  maxConcurrentRequests?: number;
  /** Limit of one request in ms; a request that takes longer is retried. Default 30,000. */
  requestTimeoutMs?: number;
  /** Pauses after failures: default 500 ms doubling to 30 s, and Retry-After honoured up to 60 s. */
  backoff?: Partial<Backoff>;
  /**
   * Where a Node-like process exists, send what is buffered when it is about to exit (`beforeExit`, waiting at
   * most 10 s). Default true. Browsers and edge runtimes have no such event: call `flush()` yourself there.
   */
  flushOnExit?: boolean;
  /** Hears every error (a dropped, refused or retried entry); it must not throw, and if it does it is ignored. */
  onError?: (error: MonitorError) => void;
  /** Jitter source in [0, 1) (tests). Default Math.random. */
  random?: () => number;
}

export interface FlushOptions {
  /** Longest wait in ms; the entries not yet sent stay buffered. Default 30,000. */
  timeoutMs?: number;
}

export interface ShutdownOptions {
  /** Longest wait in ms for the buffer to be sent; what is left is dropped (counted). Default 10,000. */
  timeoutMs?: number;
}

export interface Monitor {
  /** Starts a trace. Log its spans with `trace.logSpan`, then `end()` it: it is sent with the spans ended by then. */
  logTrace(options: TraceOptions): Trace;
  /** Sends every entry ended so far and resolves when each is settled, or after the timeout. Never rejects. */
  flush(options?: FlushOptions): Promise<void>;
  /** Flushes, then stops: the timer and the exit hook go, entries ended afterwards are dropped. Never rejects. */
  shutdown(options?: ShutdownOptions): Promise<void>;
  status(): MonitorStatus;
}

const EXIT_FLUSH_TIMEOUT_MS = 10_000;

export function initMonitor(connection: ClientOptions, options: MonitorOptions): Monitor {
  return new BufferedMonitor(connection, options);
}

class BufferedMonitor implements Monitor {
  readonly #ledger: Ledger;
  readonly #delivery: Delivery;
  readonly #sink: MonitorSink;
  readonly #timer: ReturnType<typeof setInterval>;
  readonly #removeExitHook: () => void;
  #closed = false;
  /** Set when a flush at exit left entries behind (the server is down): the next beforeExit lets the process go. */
  #exitFlushGaveUp = false;

  constructor(connection: ClientOptions, options: MonitorOptions) {
    this.#ledger = new Ledger(options.onError);
    this.#delivery = new Delivery({
      projectId: options.projectId,
      post: createTransport(connection, options.requestTimeoutMs ?? 30_000),
      ledger: this.#ledger,
      maxBufferSize: Math.max(1, options.maxBufferSize ?? 1_000),
      maxConcurrentRequests: Math.max(1, options.maxConcurrentRequests ?? 4),
      backoff: { baseDelayMs: 500, maxDelayMs: 30_000, maxRetryAfterMs: 60_000, ...options.backoff },
      random: options.random ?? Math.random,
    });
    this.#sink = this.#createSink();
    this.#timer = setInterval(() => this.#delivery.drain(), Math.max(1, options.flushIntervalMs ?? 1_000));
    unrefTimer(this.#timer);
    this.#removeExitHook = options.flushOnExit === false ? () => {} : onBeforeExit(() => this.#flushAtExit());
  }

  logTrace(options: TraceOptions): Trace {
    return new Trace(this.#sink, options);
  }

  async flush(options: FlushOptions = {}): Promise<void> {
    const wait = this.#delivery.settled(this.#delivery.lastSeq);
    this.#delivery.drain();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, options.timeoutMs ?? 30_000);
    });
    await Promise.race([wait.done, timeout]);
    clearTimeout(timer);
    wait.cancel();
  }

  async shutdown(options: ShutdownOptions = {}): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#timer);
    this.#removeExitHook();
    await this.flush({ timeoutMs: options.timeoutMs ?? 10_000 });
    this.#delivery.dropQueued("the monitor shut down before these entries were sent");
  }

  status(): MonitorStatus {
    const { sent, dropped, failed, lastError } = this.#ledger;
    return { buffered: this.#delivery.buffered, sent, dropped, failed, lastError, closed: this.#closed };
  }

  #flushAtExit(): void {
    if (this.#delivery.buffered === 0 || this.#exitFlushGaveUp) return;
    void this.flush({ timeoutMs: EXIT_FLUSH_TIMEOUT_MS }).then(() => {
      if (this.#delivery.buffered > 0) this.#exitFlushGaveUp = true;
    });
  }

  #createSink(): MonitorSink {
    const ledger = this.#ledger;
    const delivery = this.#delivery;
    return {
      newReferenceId: referenceIdGenerator(),
      traceEnded: (trace) => {
        if (this.#closed) {
          trace.state = "dropped";
          ledger.drop(1 + trace.spans.length, `trace ${trace.referenceId} ended after the monitor shut down`);
          return;
        }
        this.#exitFlushGaveUp = false;
        delivery.enqueueTrace(trace);
      },
      spanEnded: (trace, span) => {
        if (++trace.spanCount > MAX_SPANS_PER_TRACE) {
          ledger.drop(1, `trace ${trace.referenceId} already holds ${MAX_SPANS_PER_TRACE} spans, the API's limit`);
        } else if (trace.state === "open") {
          trace.spans.push(span);
        } else if (this.#closed) {
          ledger.drop(1, `span ${span.referenceId} ended after the monitor shut down`);
        } else if (trace.state === "failed") {
          ledger.fail(1, {
            message: `span ${span.referenceId}: its trace ${trace.referenceId} was refused`,
            at: Date.now(),
          });
        } else if (trace.state === "dropped") {
          ledger.drop(1, `span ${span.referenceId}: its trace ${trace.referenceId} was dropped`);
        } else {
          this.#exitFlushGaveUp = false;
          delivery.enqueueSpan(trace, span);
        }
      },
      misuse: (message) => ledger.error({ message, at: Date.now() }),
    };
  }
}
