/** The monitor against a real Pharos on loopback: what it sends, how nesting and limits map onto the API. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPharos } from "../pharos.ts";
import type { FetchLike } from "../retry.ts";
import { type RunningPharos, spansOf, startPharos, tracesOf } from "../testing/pharos.ts";
import type { Monitor, MonitorOptions } from "./monitor.ts";

let pharos: RunningPharos;
beforeAll(async () => {
  pharos = await startPharos();
});
afterAll(async () => {
  await pharos?.close();
});

/** A monitor on the test server that records the path of every request it sends. */
function monitorOf(options: Partial<MonitorOptions> = {}): { monitor: Monitor; sent: string[] } {
  const sent: string[] = [];
  const fetch: FetchLike = (request) => {
    sent.push(new URL(request.url).pathname);
    return globalThis.fetch(request);
  };
  const client = createPharos({ baseUrl: pharos.baseUrl, apiKey: pharos.apiKey, fetch });
  const monitor = client.initMonitor({ projectId: pharos.projectId, flushOnExit: false, ...options });
  return { monitor, sent };
}

const model = (text: string) => ({
  type: "Model" as const,
  provider: "openai",
  model: "gpt-4o-mini",
  input: JSON.stringify({ messages: [{ role: "user", content: [{ modality: "text", value: text }] }] }),
  output: JSON.stringify({
    messages: [{ role: "assistant", content: [{ modality: "text", value: "ok" }] }],
    tokenUsage: { promptTokens: 3, completionTokens: 1, totalTokens: 4 },
  }),
  cost: 0.001,
});

describe("delivery", () => {
  it("sends a trace with its ended, nested spans in one POST /logs/trace, and a span ended later by POST /logs/span", async () => {
    const { monitor, sent } = monitorOf();
    const trace = monitor.logTrace({
      name: "support-chat",
      sessionId: "s-1",
      userId: "u-1",
      tags: ["test"],
      attributes: { plan: "pro" },
    });
    const agent = trace.logSpan({ name: "agent" });
    const llm = agent.logSpan({ name: "llm-call", content: model("Where is my order?") });
    llm.end({ status: "success" });
    const tool = agent.logSpan({ name: "lookup_order", content: { type: "Tool", input: "{}", output: "{}" } });
    tool.update({ attributes: { orderId: "8812" } }).end({ status: "success" });
    agent.end({ status: "success" });
    const late = trace.logSpan({ name: "feedback" });
    trace.update({ attributes: { region: "eu" } }).end({ status: "success" });
    late.end();

    await monitor.flush();
    expect(sent).toEqual(["/v2/logs/trace", "/v2/logs/span"]);
    expect(monitor.status()).toMatchObject({ buffered: 0, sent: 5, dropped: 0, failed: 0, lastError: null });

    const [stored] = (await tracesOf(pharos.client, pharos.projectId)).filter(
      (t) => t.referenceId === trace.referenceId,
    );
    expect(stored).toMatchObject({
      name: "support-chat",
      status: "success",
      sessionId: "s-1",
      userId: "u-1",
      tags: ["test"],
    });
    expect(stored?.attributes).toEqual({ plan: "pro", region: "eu" });
    expect(stored?.spanIds).toHaveLength(4);
    expect(stored?.totalCost).toBeCloseTo(0.001);

    const spans = (await spansOf(pharos.client, pharos.projectId)).filter((s) => stored?.spanIds.includes(s.id));
    const byName = Object.fromEntries(spans.map((span) => [span.name, span]));
    expect(byName["llm-call"]?.parentReferenceId).toBe(agent.referenceId);
    expect(byName.lookup_order?.parentReferenceId).toBe(agent.referenceId);
    expect(byName.lookup_order?.attributes).toEqual({ orderId: "8812" });
    expect(byName.agent?.parentReferenceId).toBeNull();
    expect(byName.feedback).toMatchObject({ status: "unknown", contentType: "Other" });
    for (const span of spans) expect(span.endedAt).toBeGreaterThan(span.startedAt);
    await monitor.shutdown();
  });

  it("sends nothing before the trace ends, and flush() waits for what has ended", async () => {
    const { monitor, sent } = monitorOf();
    const trace = monitor.logTrace({ name: "open" });
    trace.logSpan({ name: "step" }).end();
    await monitor.flush();
    expect(sent).toEqual([]);
    expect(monitor.status().buffered).toBe(0);
    trace.end();
    expect(monitor.status().buffered).toBe(2);
    await monitor.flush();
    expect(sent).toEqual(["/v2/logs/trace"]);
    expect(monitor.status()).toMatchObject({ buffered: 0, sent: 2 });
    await monitor.shutdown();
  });

  it("sends on its own every flushIntervalMs, without flush()", async () => {
    const { monitor } = monitorOf({ flushIntervalMs: 20 });
    monitor.logTrace({ name: "ticked" }).end();
    await waitForStatus(monitor, (status) => status.sent === 1);
    await monitor.shutdown();
  });
});

describe("the API's limits", () => {
  it("splits a trace of 1,005 spans: 1,000 with the trace, 5 by POST /logs/span; all stored", async () => {
    const { monitor, sent } = monitorOf({ maxBufferSize: 2_000 });
    const trace = monitor.logTrace({ name: "big" });
    for (let i = 0; i < 1_005; i++) trace.logSpan({ name: `step-${i}` }).end({ status: "success" });
    trace.end();
    await monitor.flush();
    expect(sent.filter((path) => path === "/v2/logs/trace")).toHaveLength(1);
    expect(sent.filter((path) => path === "/v2/logs/span")).toHaveLength(5);
    expect(monitor.status()).toMatchObject({ sent: 1_006, failed: 0, dropped: 0 });
    const [stored] = (await tracesOf(pharos.client, pharos.projectId)).filter(
      (t) => t.referenceId === trace.referenceId,
    );
    expect(stored?.spanIds).toHaveLength(1_005);
    await monitor.shutdown();
  });

  it("keeps a child whose parent ended later out of the trace's request (the API wants the parent in it)", async () => {
    const { monitor, sent } = monitorOf();
    const trace = monitor.logTrace({ name: "parent-later" });
    const parent = trace.logSpan({ name: "parent" });
    parent.logSpan({ name: "child" }).end();
    trace.end();
    parent.end();
    await monitor.flush();
    expect(sent).toEqual(["/v2/logs/trace", "/v2/logs/span", "/v2/logs/span"]);
    expect(monitor.status()).toMatchObject({ sent: 3, failed: 0 });
    await monitor.shutdown();
  });

  it("drops a span whose content is over 1 MB, counted, and delivers the rest of its trace", async () => {
    const { monitor } = monitorOf();
    const trace = monitor.logTrace({ name: "huge" });
    trace.logSpan({ name: "small" }).end();
    const huge = "é".repeat(600_000); // 1.2 MB of UTF-8, 0.6 M UTF-16 units
    trace.logSpan({ name: "huge", content: { type: "Other", input: JSON.stringify(huge), output: "{}" } }).end();
    trace.end();
    await monitor.flush();
    expect(monitor.status()).toMatchObject({ sent: 2, dropped: 1, failed: 0 });
    expect(monitor.status().lastError?.message).toMatch(/over 1 MB/);
    await monitor.shutdown();
  });
});

describe("refusals", () => {
  it("does not retry a 4xx: the entry fails, counted, with the server's error", async () => {
    const { monitor, sent } = monitorOf({ projectId: "project_01JD8Q4KZ8T6V2M3N4P5Q6R7S8" });
    const trace = monitor.logTrace({ name: "elsewhere" });
    trace.logSpan({ name: "step" }).end();
    trace.end();
    await monitor.flush();
    expect(sent).toEqual(["/v2/logs/trace"]);
    expect(monitor.status()).toMatchObject({ sent: 0, failed: 2, buffered: 0 });
    expect(monitor.status().lastError).toMatchObject({ status: 404, code: "RESOURCE_NOT_FOUND" });
    await monitor.shutdown();
  });

  it("fails the spans that end after a refused trace without sending them", async () => {
    const { monitor, sent } = monitorOf();
    const trace = monitor.logTrace({ name: "bad", attributes: { "": "an empty key is refused" } });
    const late = trace.logSpan({ name: "late" });
    trace.end();
    await monitor.flush();
    late.end();
    await monitor.flush();
    expect(sent).toEqual(["/v2/logs/trace"]);
    expect(monitor.status()).toMatchObject({ sent: 0, failed: 2 });
    await monitor.shutdown();
  });
});

describe("never in the application's way", () => {
  it("records misuse (end twice, update after end) and onError's own failure instead of throwing", async () => {
    const errors: string[] = [];
    const { monitor } = monitorOf({
      onError: (error) => {
        errors.push(error.message);
        throw new Error("the application's handler fails");
      },
    });
    const trace = monitor.logTrace({ name: "twice" });
    const span = trace.logSpan({ name: "step" });
    span.end();
    expect(() => span.end()).not.toThrow();
    expect(() => span.update({ name: "renamed" })).not.toThrow();
    trace.end();
    expect(() => trace.end()).not.toThrow();
    expect(errors).toEqual([
      `span ${span.referenceId} ended twice`,
      `span ${span.referenceId} updated after it ended`,
      `trace ${trace.referenceId} ended twice`,
    ]);
    await monitor.flush();
    expect(monitor.status()).toMatchObject({ sent: 2, failed: 0 });
    await monitor.shutdown();
  });

  it("after shutdown, drops (counts) what ends and stops", async () => {
    const { monitor, sent } = monitorOf();
    monitor.logTrace({ name: "before" }).end();
    await monitor.shutdown();
    expect(monitor.status()).toMatchObject({ sent: 1, closed: true });
    const trace = monitor.logTrace({ name: "after" });
    trace.logSpan({ name: "step" }).end();
    trace.end();
    await monitor.flush();
    expect(monitor.status()).toMatchObject({ sent: 1, dropped: 2 });
    expect(sent).toEqual(["/v2/logs/trace"]);
  });
});

async function waitForStatus(monitor: Monitor, condition: (status: ReturnType<Monitor["status"]>) => boolean) {
  const deadline = Date.now() + 20_000;
  while (!condition(monitor.status())) {
    if (Date.now() > deadline) throw new Error(`timed out; status ${JSON.stringify(monitor.status())}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
