/**
 * A trace of 10,000 spans, the most a trace may hold, in the trace view in Chromium against a real server
 * (harness.ts): the tree is read in one request (getLogTraceTree) and only the rows in view are in the page,
 * so the view stays usable however long the trace; a span far down is reached by scrolling and read in full.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleWorld, signIn, startConsoleWorld } from "./harness.ts";

const SPANS = 10_000;
let world: ConsoleWorld;
let traceId: string;

const hex = (value: number, length: number) => value.toString(16).padStart(length, "0");
const nanos = (ms: number) => `${BigInt(ms) * 1_000_000n}`;

beforeAll(async () => {
  world = await startConsoleWorld();
  // One OTLP request holds the whole trace: a root span and its steps, each step a Function span.
  const otelTraceId = hex(0xbeef, 32);
  const at = Date.now() - 3_600_000;
  const spans = Array.from({ length: SPANS }, (_, i) => ({
    traceId: otelTraceId,
    spanId: hex(i + 1, 16),
    ...(i > 0 && { parentSpanId: hex(1, 16) }),
    name: i === 0 ? "long-agent-run" : `step-${i}`,
    kind: 1,
    startTimeUnixNano: nanos(at + i),
    endTimeUnixNano: nanos(i === 0 ? at + SPANS + 1 : at + i + 1),
  }));
  await world.api("POST", "/otel/v1/traces", {
    resourceSpans: [
      {
        resource: { attributes: [{ key: "pharos.project.id", value: { stringValue: world.projectId } }] },
        scopeSpans: [{ scope: { name: "large-trace-test" }, spans }],
      },
    ],
  });
  const found = await world.api("POST", "/logs/traces", { projectId: world.projectId, name: "long-agent-run" });
  traceId = found.traces[0].id;
}, 120_000);

afterAll(async () => {
  await world?.close();
});

describe("a trace of 10,000 spans", () => {
  it("shows its tree with only the rows in view rendered, and reads a span far down when selected", async () => {
    const { page, problems } = await world.newPage();
    await signIn(world, page, world.keys.full);
    await page.goto(`${world.baseUrl}/traces/${traceId}?project=${world.projectId}`);
    await page.getByRole("heading", { name: "long-agent-run", level: 2 }).waitFor();
    expect(await page.locator(".facts").first().innerText()).toMatch(/Spans\s+10000/);
    const tree = page.getByRole("navigation", { name: "Span tree" });
    const rendered = await tree.getByRole("link").count();
    expect(rendered).toBeGreaterThan(0);
    expect(rendered).toBeLessThan(100);

    await tree.evaluate((element) => {
      element.scrollTop = element.scrollHeight;
    });
    const last = tree.getByRole("link", { name: new RegExp(`^step-${SPANS - 1}\\b`) });
    await last.click();
    await page.getByRole("heading", { name: `step-${SPANS - 1}`, level: 2 }).waitFor();
    expect(new URL(page.url()).searchParams.get("span")).not.toBeNull();
    expect(await tree.getByRole("link").count()).toBeLessThan(100);
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
