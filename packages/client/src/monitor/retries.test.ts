/**
 * What the monitor does when the server fails, against a scripted server on loopback: retries of 5xx, 429 and
 * network errors (Retry-After honoured), an answer lost after the write was stored, and a buffer that overflows
 * while the server is down.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createPharos } from "../pharos.ts";
import { type Answer, type Recorded, startServer, type TestServer } from "../testing/http-server.ts";
import type { MonitorOptions } from "./monitor.ts";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const OK: Answer = { status: 200, body: { traceId: "trace_01JD8Q9E4F6G8H0J2K4M6N8P0Q", spanIds: [] } };
const unavailable = (headers: Record<string, string> = {}): Answer => ({
  status: 503,
  body: { error: { code: "INTERNAL_ERROR", message: "unavailable" } },
  headers,
});

function monitorFor(origin: string, options: Partial<MonitorOptions> = {}) {
  return createPharos({ baseUrl: origin, apiKey: "phk_test" }).initMonitor({
    projectId: "project_01JD8Q4KZ8T6V2M3N4P5Q6R7S8",
    flushOnExit: false,
    backoff: { baseDelayMs: 20, maxDelayMs: 50 },
    ...options,
  });
}

const referenceOf = (request: Recorded) =>
  (JSON.parse(request.body) as { trace: { referenceId: string } }).trace.referenceId;

describe("retries", () => {
  it("retries a 503 and a dropped connection until the write is stored, with the same body", async () => {
    const answers: Answer[] = [unavailable(), "drop", OK];
    server = await startServer((_, index) => answers[Math.min(index, answers.length - 1)] as Answer);
    const monitor = monitorFor(server.origin);
    monitor.logTrace({ name: "flaky" }).end();
    await monitor.flush();
    expect(server.requests).toHaveLength(3);
    expect(new Set(server.requests.map((request) => request.body)).size).toBe(1);
    expect(monitor.status()).toMatchObject({ sent: 1, failed: 0, dropped: 0, buffered: 0 });
    expect(monitor.status().lastError?.message).toMatch(/network error/);
    await monitor.shutdown();
  });

  it("waits as long as a 429's Retry-After says before trying again", async () => {
    const answers: Answer[] = [
      { status: 429, headers: { "Retry-After": "1" }, body: { error: { code: "RATE_LIMITED" } } },
      OK,
    ];
    const times: number[] = [];
    server = await startServer((_, index) => {
      times.push(Date.now());
      return answers[Math.min(index, answers.length - 1)] as Answer;
    });
    const monitor = monitorFor(server.origin);
    monitor.logTrace({ name: "limited" }).end();
    await monitor.flush();
    expect(server.requests).toHaveLength(2);
    // A lower bound only: the monitor must not come back before the server said it may.
    expect((times[1] as number) - (times[0] as number)).toBeGreaterThanOrEqual(950);
    expect(monitor.status()).toMatchObject({ sent: 1, failed: 0 });
    await monitor.shutdown();
  });

  it("counts a 409 after a lost answer as stored: the earlier attempt was written", async () => {
    const answers: Answer[] = [
      "drop",
      { status: 409, body: { error: { code: "CONFLICT", message: "referenceId used" } } },
    ];
    server = await startServer((_, index) => answers[Math.min(index, answers.length - 1)] as Answer);
    const monitor = monitorFor(server.origin);
    monitor.logTrace({ name: "stored-once" }).end();
    await monitor.flush();
    expect(monitor.status()).toMatchObject({ sent: 1, failed: 0 });
    await monitor.shutdown();
  });

  it("fails a 409 on a first attempt: another trace holds that reference id", async () => {
    server = await startServer(() => ({
      status: 409,
      body: { error: { code: "CONFLICT", message: "referenceId used" } },
    }));
    const monitor = monitorFor(server.origin);
    monitor.logTrace({ name: "duplicate", referenceId: "mine" }).end();
    await monitor.flush();
    expect(server.requests).toHaveLength(1);
    expect(monitor.status()).toMatchObject({ sent: 0, failed: 1 });
    await monitor.shutdown();
  });
});

describe("a bounded buffer", () => {
  it("drops the oldest entries not in flight when full while the server is down, and sends the rest once back", async () => {
    let up = false;
    const stored: string[] = [];
    server = await startServer((request) => {
      if (!up) return unavailable();
      stored.push(referenceOf(request));
      return OK;
    });
    const monitor = monitorFor(server.origin, { maxBufferSize: 5, maxConcurrentRequests: 1, flushIntervalMs: 10 });
    const references: string[] = [];
    for (let i = 0; i < 8; i++) {
      const trace = monitor.logTrace({ name: `t${i}` });
      references.push(trace.referenceId);
      trace.end();
    }
    // t0 went out when the buffer was half full and is in flight: it may be stored any moment, so it stays;
    // t1 to t3 are the oldest of the rest.
    expect(monitor.status()).toMatchObject({ buffered: 5, dropped: 3 });
    expect(monitor.status().lastError?.message).toMatch(/buffer full/);
    await monitor.flush({ timeoutMs: 200 });
    expect(monitor.status().sent).toBe(0);

    up = true;
    await monitor.flush();
    expect(monitor.status()).toMatchObject({ buffered: 0, sent: 5, dropped: 3, failed: 0 });
    expect(stored.sort()).toEqual([references[0], ...references.slice(4)].sort());
    await monitor.shutdown();
  });

  it("shutdown gives up after its timeout and counts what is left as dropped", async () => {
    server = await startServer(() => unavailable());
    const monitor = monitorFor(server.origin);
    monitor.logTrace({ name: "never" }).end();
    await monitor.shutdown({ timeoutMs: 100 });
    // An attempt still in flight at the timeout (a loaded machine) is dropped when it fails.
    for (let i = 0; i < 100 && monitor.status().buffered > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(monitor.status()).toMatchObject({ buffered: 0, sent: 0, dropped: 1, closed: true });
  });
});
