import { expect, it } from "vitest";
import { expectError } from "../testing/expect-error.ts";
import { describeEachStore } from "../testing/harness.ts";
import { RateLimiter } from "./rate-limit.ts";

it("refills a bucket continuously and says how long to wait", () => {
  let now = 0;
  const limiter = new RateLimiter({ logTraces: 60, logSpans: 60, deployments: 60, other: 2 }, () => now);
  limiter.take("w1", "other");
  limiter.take("w1", "other");
  expect(() => limiter.take("w1", "other")).toThrowError(
    expect.objectContaining({ code: "RATE_LIMITED", retryAfter: 30 }),
  );
  limiter.take("w2", "other"); // workspaces have their own buckets
  limiter.take("w1", "logTraces"); // and so do classes
  now += 30_000;
  limiter.take("w1", "other");
  expect(() => limiter.take("w1", "other")).toThrow();
});

describeEachStore(
  "rate limiting",
  (use) => {
    it("answers 429 RATE_LIMITED with Retry-After once the workspace's limit is spent", async () => {
      const h = use();
      for (let i = 0; i < 3; i++) expect((await h.request("GET", "/projects")).status).toBe(200);
      const limited = await h.request("GET", "/projects");
      await expectError(limited, 429, "RATE_LIMITED");
      expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
      expect(limited.headers.get("X-Request-Id")).toBeTruthy();
      const other = await h.otherWorkspace();
      expect((await h.request("GET", "/projects", { key: other.key })).status).toBe(200);
    });
  },
  { rateLimits: { other: 3 } },
);
