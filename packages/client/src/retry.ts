/**
 * Retries as the contract allows them: every 5xx and 429 ("a client mistake is never a 5xx, so clients may
 * safely retry every 5xx and 429 and never any other 4xx", openapi/description.md) and network errors. Backoff is
 * exponential with full jitter; a `Retry-After` header is honoured as sent.
 */

export interface RetryOptions {
  /** Total attempts, the first included. `1` disables retries. Default 3. */
  attempts: number;
  /** Backoff ceiling of the first retry in ms; it doubles with each retry. Default 200. */
  baseDelayMs: number;
  /** Highest backoff ceiling in ms. Default 5,000. */
  maxDelayMs: number;
  /**
   * The longest `Retry-After` waited for, in ms. A response asking for a longer wait is returned to the caller
   * instead of being retried, so a call never stalls silently for minutes. Default 60,000.
   */
  maxRetryAfterMs: number;
  /** Waits `ms`; rejects when `signal` aborts. Injectable so tests need not wait. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** A number in [0, 1); the jitter source. Injectable for tests. */
  random: () => number;
  /** Called before each wait, with the attempt that failed (1-based) and the delay chosen. */
  onRetry?: (event: RetryEvent) => void;
}

export interface RetryEvent {
  attempt: number;
  delayMs: number;
  /** The retryable response, or the network error. */
  cause: Response | unknown;
}

export type FetchLike = (request: Request) => Promise<Response>;

export const defaultRetryOptions: RetryOptions = {
  attempts: 3,
  baseDelayMs: 200,
  maxDelayMs: 5_000,
  maxRetryAfterMs: 60_000,
  sleep: abortableSleep,
  random: Math.random,
};

export function isRetryableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}

/**
 * Full jitter (a uniform delay between 0 and the exponential ceiling): retries of many clients that failed
 * together spread out instead of arriving together again. `retry` is 1 for the first retry.
 */
export function backoffDelay(retry: number, options: Pick<RetryOptions, "baseDelayMs" | "maxDelayMs" | "random">) {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (retry - 1));
  return Math.floor(options.random() * ceiling);
}

/** `Retry-After` in ms: delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Wraps a fetch so that retryable failures are sent again. The request body is read once and every attempt
 * gets a fresh Request with the same method, headers (so the same `X-Request-Id`), body and signal.
 */
export function withRetries(fetchImpl: FetchLike, overrides: Partial<RetryOptions> = {}): FetchLike {
  const given = Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined));
  const options: RetryOptions = { ...defaultRetryOptions, ...given };
  return async (request) => {
    if (options.attempts <= 1) return fetchImpl(request);
    const body = request.body === null ? undefined : await request.clone().arrayBuffer();
    const copy = () =>
      new Request(request.url, {
        method: request.method,
        headers: request.headers,
        body,
        signal: request.signal,
        redirect: request.redirect,
      });

    for (let attempt = 1; ; attempt++) {
      const last = attempt >= options.attempts;
      let response: Response;
      try {
        response = await fetchImpl(copy());
      } catch (error) {
        if (last || isAbort(error, request.signal)) throw error;
        const delayMs = backoffDelay(attempt, options);
        options.onRetry?.({ attempt, delayMs, cause: error });
        await options.sleep(delayMs, request.signal);
        continue;
      }
      if (last || !isRetryableStatus(response.status)) return response;
      const retryAfter = parseRetryAfter(response.headers.get("Retry-After"));
      if (retryAfter !== undefined && retryAfter > options.maxRetryAfterMs) return response;
      const delayMs = retryAfter ?? backoffDelay(attempt, options);
      // Free the connection of the answer we are discarding.
      await response.body?.cancel().catch(() => undefined);
      options.onRetry?.({ attempt, delayMs, cause: response });
      await options.sleep(delayMs, request.signal);
    }
  };
}

function isAbort(error: unknown, signal: AbortSignal): boolean {
  return signal.aborted || (error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError"));
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
