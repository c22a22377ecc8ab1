import { afterEach, describe, expect, it } from "vitest";
import { createClient } from "./client.ts";
import { backoffDelay, parseRetryAfter, type RetryOptions } from "./retry.ts";
import { type Answer, errorBody, PROJECT, scripted, startServer, type TestServer } from "./testing/http-server.ts";

const KEY = "pharos_test_key";
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A client of a fresh loopback server that answers `answers` in order; sleeps are recorded, not waited. */
async function setup(answers: Answer[], retry: Partial<RetryOptions> = {}) {
  server = await startServer(scripted(...answers));
  const sleeps: number[] = [];
  const client = createClient({
    baseUrl: `${server.origin}/v2`,
    apiKey: KEY,
    retry: {
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      ...retry,
    },
  });
  return { client, sleeps, requests: server.requests };
}

const ok: Answer = { status: 200, body: PROJECT };

describe("retries", () => {
  it("retries a 500 and returns the 200 that follows", async () => {
    const { client, sleeps, requests } = await setup([{ status: 500, body: errorBody("INTERNAL_ERROR") }, ok]);
    const { data, error } = await client.GET("/projects/{projectId}", { params: { path: { projectId: PROJECT.id } } });
    expect(error).toBeUndefined();
    expect(data).toEqual(PROJECT);
    expect(requests).toHaveLength(2);
    expect(sleeps).toHaveLength(1);
    expect(sleeps[0]).toBeGreaterThanOrEqual(0);
    expect(sleeps[0]).toBeLessThan(200);
  });

  it("retries each 5xx up to `attempts` in all, then returns the last answer", async () => {
    const { client, requests } = await setup(
      [{ status: 502 }, { status: 503 }, { status: 500, body: errorBody("INTERNAL_ERROR") }],
      { attempts: 3 },
    );
    const { data, error, response } = await client.GET("/projects");
    expect(data).toBeUndefined();
    expect(response.status).toBe(500);
    expect(error).toEqual(errorBody("INTERNAL_ERROR"));
    expect(requests).toHaveLength(3);
  });

  it("honours Retry-After seconds on a 429", async () => {
    const { client, sleeps, requests } = await setup([
      { status: 429, body: errorBody("RATE_LIMITED"), headers: { "Retry-After": "2" } },
      ok,
    ]);
    const { data } = await client.GET("/projects/{projectId}", { params: { path: { projectId: PROJECT.id } } });
    expect(data).toEqual(PROJECT);
    expect(requests).toHaveLength(2);
    expect(sleeps).toEqual([2000]);
  });

  it("waits for Retry-After in real time with the default sleep", async () => {
    const { client, requests } = await setup(
      [{ status: 429, body: errorBody("RATE_LIMITED"), headers: { "Retry-After": "1" } }, ok],
      { sleep: undefined },
    );
    const started = performance.now();
    const { data } = await client.GET("/projects/{projectId}", { params: { path: { projectId: PROJECT.id } } });
    expect(data).toEqual(PROJECT);
    expect(requests).toHaveLength(2);
    expect(performance.now() - started).toBeGreaterThanOrEqual(990);
  });

  it("uses jittered backoff for a 429 without Retry-After", async () => {
    const { client, sleeps, requests } = await setup([{ status: 429, body: errorBody("RATE_LIMITED") }, ok], {
      random: () => 0.5,
    });
    await client.GET("/projects");
    expect(requests).toHaveLength(2);
    expect(sleeps).toEqual([100]);
  });

  it("returns a 429 whose Retry-After exceeds maxRetryAfterMs instead of stalling", async () => {
    const { client, sleeps, requests } = await setup(
      [{ status: 429, body: errorBody("RATE_LIMITED"), headers: { "Retry-After": "3600" } }, ok],
      { maxRetryAfterMs: 60_000 },
    );
    const { response, error } = await client.GET("/projects");
    expect(response.status).toBe(429);
    expect(error).toEqual(errorBody("RATE_LIMITED"));
    expect(requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it("retries a dropped connection (network error) and succeeds", async () => {
    const { client, requests } = await setup(["drop", ok]);
    const { data } = await client.GET("/projects/{projectId}", { params: { path: { projectId: PROJECT.id } } });
    expect(data).toEqual(PROJECT);
    expect(requests).toHaveLength(2);
  });

  it("throws the network error once the attempts are used up", async () => {
    const { client, requests } = await setup(["drop"], { attempts: 4 });
    await expect(client.GET("/projects")).rejects.toThrow(TypeError);
    expect(requests).toHaveLength(4);
  });

  it.each([400, 401, 403, 404, 409, 413])("never retries a %i", async (status) => {
    const { client, sleeps, requests } = await setup([{ status, body: errorBody("X") }, ok]);
    const { response, error } = await client.GET("/projects");
    expect(response.status).toBe(status);
    expect(error).toEqual(errorBody("X"));
    expect(requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it("sends the same body, key and request id on every attempt", async () => {
    const { client, requests } = await setup(["drop", { status: 503 }, { status: 201, body: PROJECT }]);
    const { data, response } = await client.POST("/projects", { body: { title: "Support assistant" } });
    expect(response.status).toBe(201);
    expect(data).toEqual(PROJECT);
    expect(requests).toHaveLength(3);
    for (const request of requests) {
      expect(request.method).toBe("POST");
      expect(JSON.parse(request.body)).toEqual({ title: "Support assistant" });
      expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(request.headers["content-type"]).toBe("application/json");
      expect(request.headers["x-request-id"]).toBe(requests[0]?.headers["x-request-id"]);
    }
  });

  it("sends once with retry: false", async () => {
    server = await startServer(scripted({ status: 500 }, ok));
    const client = createClient({ baseUrl: `${server.origin}/v2`, apiKey: KEY, retry: false });
    expect((await client.GET("/projects")).response.status).toBe(500);
    expect(server.requests).toHaveLength(1);
  });

  it("stops waiting when the caller aborts", async () => {
    const controller = new AbortController();
    // The caller gives up while the client waits before its second attempt (not at a time that a loaded machine
    // may reach before the first attempt was even sent).
    const { client, requests } = await setup([{ status: 500 }, ok], {
      sleep: (_ms, signal) =>
        new Promise((_, reject) => {
          signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
          controller.abort(new Error("caller gave up"));
        }),
    });
    const call = client.GET("/projects", { signal: controller.signal });
    await expect(call).rejects.toThrow("caller gave up");
    expect(requests).toHaveLength(1);
  });
});

describe("backoff with full jitter", () => {
  const options = { baseDelayMs: 100, maxDelayMs: 1_000 };

  it("draws each delay from [0, min(max, base·2^(retry-1)))", () => {
    const ceilings = [100, 200, 400, 800, 1000, 1000];
    ceilings.forEach((ceiling, i) => {
      expect(backoffDelay(i + 1, { ...options, random: () => 0 })).toBe(0);
      expect(backoffDelay(i + 1, { ...options, random: () => 0.999999 })).toBe(ceiling - 1);
      for (let n = 0; n < 200; n++) {
        const delay = backoffDelay(i + 1, { ...options, random: Math.random });
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBeLessThan(ceiling);
      }
    });
  });

  it("spreads delays over the whole range instead of a fixed step", () => {
    const delays = Array.from({ length: 400 }, () => backoffDelay(3, { ...options, random: Math.random }));
    expect(Math.min(...delays)).toBeLessThan(100);
    expect(Math.max(...delays)).toBeGreaterThan(300);
  });

  it("keeps the sleeps of a real retry sequence within their ceilings", async () => {
    const { client, sleeps, requests } = await setup([{ status: 500 }], {
      attempts: 6,
      baseDelayMs: 50,
      maxDelayMs: 300,
    });
    await client.GET("/projects");
    expect(requests).toHaveLength(6);
    expect(sleeps).toHaveLength(5);
    [50, 100, 200, 300, 300].forEach((ceiling, i) => {
      expect(sleeps[i]).toBeGreaterThanOrEqual(0);
      expect(sleeps[i]).toBeLessThan(ceiling);
    });
  });
});

describe("parseRetryAfter", () => {
  it("reads delay-seconds and HTTP dates", () => {
    expect(parseRetryAfter("0")).toBe(0);
    expect(parseRetryAfter(" 7 ")).toBe(7000);
    const now = Date.parse("2024-11-21T12:00:00Z");
    expect(parseRetryAfter("Thu, 21 Nov 2024 12:00:05 GMT", now)).toBe(5000);
    expect(parseRetryAfter("Thu, 21 Nov 2024 11:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter("soon")).toBeUndefined();
  });
});
