/**
 * Per-workspace rate limits (requests per minute, by class of operation), as token buckets held in this
 * process: with several replicas each enforces the limit on its own share of the traffic.
 */
import type { OperationId } from "@pharos/contract";
import { ApiError } from "../errors.ts";

export type RateClass = "logTraces" | "logSpans" | "deployments" | "other";
export type RateLimits = Record<RateClass, number>;

/** The defaults of openapi/description.md ("Rate limits"). */
export const DEFAULT_RATE_LIMITS: RateLimits = {
  logTraces: 60_000,
  logSpans: 150_000,
  deployments: 60_000,
  other: 6_000,
};

export function rateClassOf(operationId: OperationId): RateClass {
  if (operationId === "createLogTrace" || operationId === "updateLogTrace") return "logTraces";
  if (operationId === "createLogSpan") return "logSpans";
  if (operationId === "getDeployment") return "deployments";
  return "other";
}

interface Bucket {
  tokens: number;
  at: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly limits: RateLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes one request from the workspace's bucket of that class, or throws RATE_LIMITED with Retry-After. */
  take(workspaceId: string, rateClass: RateClass): void {
    const perMinute = this.limits[rateClass];
    const perMs = perMinute / 60_000;
    const key = `${workspaceId}:${rateClass}`;
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: perMinute, at: now };
    bucket.tokens = Math.min(perMinute, bucket.tokens + (now - bucket.at) * perMs);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens < 1) {
      const retryAfter = Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000));
      throw new ApiError(
        "RATE_LIMITED",
        `Rate limit exceeded. Retry after ${retryAfter} seconds.`,
        undefined,
        retryAfter,
      );
    }
    bucket.tokens -= 1;
  }
}
