/**
 * Per-workspace rate limits: requests per minute of the clock (a fixed one-minute window), by class of operation,
 * counted by the store's rate windows (store/rate-windows.ts) — on PostgreSQL a counter every replica shares,
 * so N replicas allow the limit once, not N times (ADR 0009).
 *
 * A request does not ask the counter itself: this process takes requests from the window in batches, sized
 * to about LOOKAHEAD_MS of its recent traffic, spends them locally and takes the next batch before the last
 * one runs out. A process never holds more than `maxBatch(limit)` unspent, so across N replicas a window
 * admits at most the limit and, while any process still has requests to make, at least the limit less
 * (N − 1) × maxBatch held unspent by the others.
 */
import type { OperationId } from "@pharos/contract";
import { ApiError } from "../errors.ts";
import type { RateWindows } from "../store/rate-windows.ts";

export type RateClass = "logTraces" | "logSpans" | "deployments" | "other";
export type RateLimits = Record<RateClass, number>;

/** The defaults of openapi/description.md ("Rate limits"). */
export const DEFAULT_RATE_LIMITS: RateLimits = {
  logTraces: 60_000,
  logSpans: 150_000,
  deployments: 60_000,
  other: 6_000,
};

export const RATE_WINDOW_MS = 60_000;

/**
 * Where requests are counted (PHAROS_RATE_LIMIT_SCOPE): `shared`, the store's counters (on PostgreSQL, one
 * count for every replica); `process`, this process's memory (each replica allows the limit on its own).
 */
export type RateLimitScope = "shared" | "process";
export const RATE_LIMIT_SCOPES: readonly RateLimitScope[] = ["shared", "process"];

export function rateClassOf(operationId: OperationId): RateClass {
  if (operationId === "createLogTrace" || operationId === "updateLogTrace") return "logTraces";
  // An OTLP export carries spans: it counts as a span write.
  if (operationId === "createLogSpan" || operationId === "exportOtelTraces") return "logSpans";
  if (operationId === "getDeployment") return "deployments";
  return "other";
}

/**
 * How much traffic a batch covers: long enough that a busy process asks the counter a few times a second,
 * short enough that what it holds unspent stays small.
 */
const LOOKAHEAD_MS = 200;

/** The most requests a process takes at once, and so holds unspent: what the others may miss (1 %). */
export const maxBatch = (limit: number) => Math.max(1, Math.floor(limit / 100));

/** The least it takes, so that a quiet process asks the counter about once a minute rather than per request. */
const minBatch = (limit: number) => Math.max(1, Math.floor(limit / 1000));

/** A request's standing against its limit, and what the RateLimit headers tell the client. */
export interface RateState {
  admitted: boolean;
  /** `RateLimit-Policy`: the class's quota and window. */
  policy: string;
  /** `RateLimit`: requests left in the window as far as this process knows, and seconds until it ends. */
  remaining: string;
  /** Seconds until the window ends (1–60): the Retry-After of a refused request. */
  resetSeconds: number;
}

interface KeyState {
  windowStart: number;
  /** Taken from the window and not yet spent. */
  held: number;
  /** The window's count at the last reply: every process's takes, this one's unspent requests included. */
  count: number;
  /** The counter granted less than asked: the window is spent. */
  full: boolean;
  /** The take in flight, which requests without a request to spend wait for. */
  taking?: Promise<void>;
  /** Requests waiting for `taking`. */
  waiting: number;
  /** The last take's size: the next is taken ahead once fewer than half of it are left. */
  batch: number;
  lastTakeAt: number;
  spentSinceTake: number;
}

export class RateLimiter {
  private readonly keys = new Map<string, KeyState>();
  private readonly policies: Record<RateClass, string>;

  constructor(
    private readonly limits: RateLimits,
    private readonly windows: RateWindows,
    private readonly now: () => number = Date.now,
  ) {
    const policy = (rateClass: RateClass) => `"${rateClass}";q=${limits[rateClass]};w=${RATE_WINDOW_MS / 1000}`;
    this.policies = {
      logTraces: policy("logTraces"),
      logSpans: policy("logSpans"),
      deployments: policy("deployments"),
      other: policy("other"),
    };
  }

  /** Spends one request of the workspace's window for the class, or finds the window spent. */
  async take(workspaceId: string, rateClass: RateClass): Promise<RateState> {
    const limit = this.limits[rateClass];
    const now = this.now();
    const key = `${workspaceId} ${rateClass}`;
    let state = this.keys.get(key);
    if (!state) {
      state = {
        windowStart: 0,
        held: 0,
        count: 0,
        full: false,
        waiting: 0,
        batch: 0,
        lastTakeAt: now,
        spentSinceTake: 0,
      };
      this.keys.set(key, state);
    }
    const windowStart = now - (now % RATE_WINDOW_MS);
    for (;;) {
      // Only forward: a reply may have moved the key to the window a process with a faster clock opened.
      if (windowStart > state.windowStart) startWindow(state, windowStart);
      if (state.held >= 1) {
        state.held -= 1;
        state.spentSinceTake += 1;
        if (!state.full && !state.taking && state.held <= state.batch / 2) {
          // Ahead of need: a failure here surfaces on the request that waits for the next take.
          this.takeBatch(key, state, limit, now).catch(() => {});
        }
        return this.standing(true, rateClass, limit, state, now);
      }
      if (state.full) return this.standing(false, rateClass, limit, state, now);
      state.waiting += 1;
      try {
        await (state.taking ?? this.takeBatch(key, state, limit, now));
      } finally {
        state.waiting -= 1;
      }
    }
  }

  private takeBatch(key: string, state: KeyState, limit: number, now: number): Promise<void> {
    const elapsed = now - state.lastTakeAt;
    const recent = elapsed > 0 ? Math.ceil((state.spentSinceTake * LOOKAHEAD_MS) / elapsed) : state.batch;
    const want = Math.max(1, Math.min(Math.max(recent, state.waiting, minBatch(limit)), maxBatch(limit) - state.held));
    state.batch = want;
    state.lastTakeAt = now;
    state.spentSinceTake = 0;
    const windowStart = state.windowStart;
    const taking = this.windows
      .take(key, windowStart, want, limit)
      .then((grant) => {
        if (state.windowStart !== windowStart) return; // this process has moved on to the next window
        if (grant.windowStart > windowStart) {
          // Another process's clock is ahead and opened the next window: follow it there.
          startWindow(state, grant.windowStart);
          return;
        }
        state.held += grant.granted;
        state.count = grant.count;
        if (grant.granted < want) state.full = true;
      })
      .finally(() => {
        if (state.taking === taking) state.taking = undefined;
      });
    state.taking = taking;
    return taking;
  }

  private standing(admitted: boolean, rateClass: RateClass, limit: number, state: KeyState, now: number): RateState {
    const remaining = admitted ? Math.max(0, limit - state.count + state.held) : 0;
    const end = state.windowStart + RATE_WINDOW_MS;
    const resetSeconds = Math.min(RATE_WINDOW_MS / 1000, Math.max(1, Math.ceil((end - now) / 1000)));
    return {
      admitted,
      policy: this.policies[rateClass],
      remaining: `"${rateClass}";r=${remaining};t=${resetSeconds}`,
      resetSeconds,
    };
  }
}

function startWindow(state: KeyState, windowStart: number): void {
  state.windowStart = windowStart;
  state.held = 0;
  state.count = 0;
  state.full = false;
  state.taking = undefined;
}

/** 429 RATE_LIMITED, retried once the window ends. */
export const rateLimited = (retryAfter: number) =>
  new ApiError("RATE_LIMITED", `Rate limit exceeded. Retry after ${retryAfter} seconds.`, undefined, retryAfter);
