import { describe, expect, it } from "vitest";
import { createApp } from "../app.ts";
import { adminContext, createApiKey, createWorkspace } from "../services/admin/workspaces.ts";
import { processRateWindows, type RateWindows } from "../store/rate-windows.ts";
import { openScratchStore } from "../store/scratch.ts";
import { expectError } from "../testing/expect-error.ts";
import { describeEachStore, postgresUrl } from "../testing/harness.ts";
import { maxBatch, RateLimiter, type RateLimitScope, type RateLimits } from "./rate-limit.ts";

const MINUTE = 60_000;
const limits = (other: number): RateLimits => ({ logTraces: 60, logSpans: 60, deployments: 60, other });

/** Counters that count how often they are asked. */
function counted(windows: RateWindows) {
  const counter = {
    takes: 0,
    take: (...args: Parameters<RateWindows["take"]>) => {
      counter.takes++;
      return windows.take(...args);
    },
  };
  return counter;
}

describe("RateLimiter", () => {
  it("admits the limit per minute of the clock, then says when the window ends", async () => {
    let now = 10 * MINUTE + 15_000;
    const limiter = new RateLimiter(limits(2), processRateWindows(), () => now);
    expect(await limiter.take("w1", "other")).toEqual({
      admitted: true,
      policy: '"other";q=2;w=60',
      remaining: '"other";r=1;t=45',
      resetSeconds: 45,
    });
    expect((await limiter.take("w1", "other")).remaining).toBe('"other";r=0;t=45');
    now += 4_500;
    expect(await limiter.take("w1", "other")).toMatchObject({
      admitted: false,
      remaining: '"other";r=0;t=41',
      resetSeconds: 41,
    });
    expect((await limiter.take("w2", "other")).admitted).toBe(true); // workspaces have their own windows
    expect((await limiter.take("w1", "logTraces")).admitted).toBe(true); // and so do classes
    now = 11 * MINUTE;
    expect(await limiter.take("w1", "other")).toMatchObject({ admitted: true, remaining: '"other";r=1;t=60' });
  });

  it("takes requests from the counter in batches when busy, one at a time near a small limit", async () => {
    let now = 0;
    const windows = counted(processRateWindows());
    const limiter = new RateLimiter(limits(60_000), windows, () => now);
    for (let i = 0; i < 6_000; i++) {
      now += 0.1; // 10 requests per millisecond
      expect((await limiter.take("w", "other")).admitted).toBe(true);
    }
    expect(windows.takes).toBeLessThan(6_000 / 100);
  });

  it("asks a quiet process's counter about once a minute, not once a request", async () => {
    let now = 0;
    const windows = counted(processRateWindows());
    const limiter = new RateLimiter(limits(60_000), windows, () => now);
    for (let i = 0; i < 59; i++, now += 1_000) expect((await limiter.take("w", "other")).admitted).toBe(true);
    expect(windows.takes).toBe(2); // the first batch, and the next one taken ahead as it ran low
  });

  it("takes the next batch ahead and spends what it holds meanwhile", async () => {
    const windows = processRateWindows();
    const held: (() => void)[] = [];
    let takes = 0;
    const slow: RateWindows = {
      // The first take answers at once, the next ones only when the test lets them.
      take: (...args) =>
        takes++ === 0
          ? windows.take(...args)
          : new Promise((resolve) => held.push(() => resolve(windows.take(...args)))),
    };
    const limiter = new RateLimiter(limits(60_000), slow, () => 0);
    for (let i = 0; i < 60; i++) expect((await limiter.take("w", "other")).admitted).toBe(true);
    expect(takes).toBe(2);
    const waiting = limiter.take("w", "other");
    for (const release of held) release();
    expect((await waiting).admitted).toBe(true);
  });

  it("across processes sharing one counter, admits at most the limit and misses at most the batches the others hold", async () => {
    for (const limit of [30, 1_000, 20_000]) {
      let now = 0;
      const shared = processRateWindows();
      const replicas = [0, 1, 2].map(() => new RateLimiter(limits(limit), shared, () => now));
      let admitted = 0;
      // Uneven traffic, concurrent within each replica: three times the limit within the minute.
      for (let i = 0; i < 3 * limit; i += 6) {
        now += 5;
        const burst = [0, 0, 0, 1, 1, 2].map((r) => (replicas[r] as RateLimiter).take("w", "other"));
        admitted += (await Promise.all(burst)).filter((state) => state.admitted).length;
      }
      expect(admitted).toBeLessThanOrEqual(limit);
      expect(admitted).toBeGreaterThanOrEqual(limit - 2 * maxBatch(limit));
    }
  });

  it("follows a process whose clock is ahead into the next window", async () => {
    const shared = processRateWindows();
    const ahead = new RateLimiter(limits(1), shared, () => MINUTE);
    const behind = new RateLimiter(limits(1), shared, () => MINUTE - 10);
    expect((await ahead.take("w", "other")).admitted).toBe(true);
    // The counter is in the next minute: the lagging process spends that minute's requests, not the last's.
    expect(await behind.take("w", "other")).toMatchObject({ admitted: false, resetSeconds: 60 });
  });
});

describeEachStore(
  "rate limiting",
  (use) => {
    it("answers 429 RATE_LIMITED with Retry-After and the RateLimit headers once the workspace's limit is spent", async () => {
      const h = use();
      for (let i = 0; i < 3; i++) {
        const reply = await h.request("GET", "/projects");
        expect(reply.status).toBe(200);
        expect(reply.headers.get("RateLimit-Policy")).toBe('"other";q=3;w=60');
        expect(reply.headers.get("RateLimit")).toMatch(new RegExp(`^"other";r=${2 - i};t=\\d+$`));
      }
      const limited = await h.request("GET", "/projects");
      await expectError(limited, 429, "RATE_LIMITED");
      const retryAfter = Number(limited.headers.get("Retry-After"));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(limited.headers.get("RateLimit-Policy")).toBe('"other";q=3;w=60');
      expect(limited.headers.get("RateLimit")).toBe(`"other";r=0;t=${retryAfter}`);
      expect(limited.headers.get("X-Request-Id")).toBeTruthy();
      const other = await h.otherWorkspace();
      expect((await h.request("GET", "/projects", { key: other.key })).status).toBe(200);
    });

    it("counts a request the route then refuses, and says so in its headers", async () => {
      const h = use();
      const other = await h.otherWorkspace();
      const missing = await h.request("GET", "/projects/project_01JD8Q4KZ8T6V2M3N4P5Q6R7S8", { key: other.key });
      await expectError(missing, 404, "RESOURCE_NOT_FOUND");
      expect(missing.headers.get("RateLimit")).toMatch(/^"other";r=2;t=\d+$/);
    });
  },
  { rateLimits: { other: 3 } },
);

describe.runIf(postgresUrl)("rate limits across replicas [postgres]", () => {
  it("two apps on one database admit the workspace's limit once between them, unless each counts alone", async () => {
    const scratch = await openScratchStore(postgresUrl);
    try {
      await scratch.store.migrate();
      // A fixed clock: the six requests fall in one window whenever the test runs.
      const now = () => 30 * MINUTE;
      const admin = adminContext(scratch.store, now);
      const workspace = await createWorkspace(admin, "Replicated");
      const { key } = await createApiKey(admin, {
        workspaceId: workspace.id,
        name: "k",
        role: "full",
        projectIds: null,
      });
      const statusesOf = async (rateLimitScope: RateLimitScope) => {
        const replicas = await Promise.all(
          [scratch.store, scratch.openAnother()].map((store) =>
            createApp({ store, now, rateLimits: { other: 5 }, rateLimitScope }),
          ),
        );
        const statuses: number[] = [];
        for (let i = 0; i < 6; i++) {
          const app = replicas[i % 2] as (typeof replicas)[number];
          statuses.push((await app.request("/v2/projects", { headers: { Authorization: `Bearer ${key}` } })).status);
        }
        return statuses;
      };
      expect(await statusesOf("shared")).toEqual([200, 200, 200, 200, 200, 429]);
      // PHAROS_RATE_LIMIT_SCOPE=process: each counts alone (the shared window is spent, theirs are not).
      expect(await statusesOf("process")).toEqual([200, 200, 200, 200, 200, 200]);
    } finally {
      await scratch.dispose();
    }
  });
});
