/** Log metrics (POST /logs/metrics) through the client, every response validated against the spec. */
import { unwrap } from "@pharos/client";
import { beforeAll, describe, expect, it } from "vitest";
import { errorMatrixOf, itProvokedEveryDocumentedStatus, type Send } from "./cases.ts";
import { newProject, runTag, unknownId } from "./fixtures.ts";
import { expectError } from "./replies.ts";
import { useTarget } from "./target.ts";

const use = useTarget();
const itAnswersTheErrorMatrix = errorMatrixOf(use, () => projectId);
const run = runTag();

const HOUR = 3_600_000;
/** Two hours ago, on an hour boundary, so every time written is in the past and in one bucket. */
const T = Math.floor((Date.now() - 2 * HOUR) / HOUR) * HOUR;

let projectId: string;

beforeAll(async () => {
  const { client } = use();
  projectId = (await newProject(client, `Log metrics ${run}`)).id;
  for (const [index, model] of ["gpt-4o-mini", "gpt-4o-mini", "claude-3-5"].entries()) {
    const startedAt = T + index * 1000;
    unwrap(
      await client.POST("/logs/trace", {
        body: {
          projectId,
          trace: { name: `checkout-${run}`, status: "success", startedAt, endedAt: startedAt + 900 },
          spans: [
            {
              name: "llm-call",
              status: index === 2 ? "failure" : "success",
              startedAt: startedAt + 100,
              endedAt: startedAt + 600,
              content: {
                type: "Model",
                provider: "openai",
                model,
                input: '{"messages":[]}',
                output: '{"messages":[],"tokenUsage":{"promptTokens":12,"completionTokens":5,"totalTokens":17}}',
                cost: 0.5,
              },
            },
          ],
        },
      }),
    );
  }
});

describe("searchLogMetrics", () => {
  const window = { from: T, to: T + HOUR, bucket: "hour" as const };
  const send: Send = (client, extra, id = projectId) =>
    client.POST("/logs/metrics", { body: { projectId: id, ...window, metrics: ["spanCount"] }, ...extra });

  it("200: totals and series per model of what was written", async () => {
    const { client } = use();
    const reply = unwrap(
      await client.POST("/logs/metrics", {
        body: {
          projectId,
          ...window,
          metrics: ["spanCount", "errorRate", "cost", "inputTokens", "latencyP99"],
          groupBy: ["model"],
        },
      }),
    );
    expect(reply.from).toBe(T);
    expect(reply.truncated).toBe(false);
    expect(reply.groups.map((group) => [group.key.model, group.totals.spanCount, group.totals.errorRate])).toEqual([
      ["gpt-4o-mini", 2, 0],
      ["claude-3-5", 1, 1],
    ]);
    const [first] = reply.groups;
    expect(first?.totals.cost).toBeCloseTo(1, 9);
    expect(first?.totals.inputTokens).toBe(24);
    expect(Math.abs((first?.totals.latencyP99 ?? 0) - 500)).toBeLessThanOrEqual(10);
    expect(first?.series).toEqual([{ start: T, values: first?.totals }]);
    const traces = unwrap(
      await client.POST("/logs/metrics", { body: { projectId, ...window, metrics: ["traceCount"] } }),
    );
    expect(traces.groups[0]?.totals).toEqual({ traceCount: 3 });
  });

  it("400 VALIDATION_ERROR for an inverted window, too many buckets, an unknown group-by or metric, a filter rollups cannot answer", async () => {
    const { client } = use();
    const base = { projectId, ...window, metrics: ["spanCount"] };
    const bodies = [
      { ...base, from: T + HOUR, to: T },
      { ...base, bucket: "minute", to: T + 1441 * 60_000 },
      { ...base, groupBy: ["session"] },
      { ...base, metrics: ["median"] },
      { ...base, filters: [{ column: "latency", operator: "gt", value: 1 }] },
    ];
    for (const body of bodies) {
      expectError(await client.POST("/logs/metrics", { body: body as never }), 400, "VALIDATION_ERROR");
    }
  });

  it("404 RESOURCE_NOT_FOUND for an unknown project, prompt and environment", async () => {
    const { client } = use();
    const base = { projectId, ...window, metrics: ["spanCount" as const] };
    for (const body of [
      { ...base, projectId: unknownId("project") },
      { ...base, promptId: unknownId("prompt") },
      { ...base, deploymentEnvironmentId: unknownId("env") },
    ]) {
      expectError(await client.POST("/logs/metrics", { body }), 404, "RESOURCE_NOT_FOUND");
    }
  });

  itAnswersTheErrorMatrix({ access: "read", send, body: true });
});

itProvokedEveryDocumentedStatus(use, ["searchLogMetrics"]);
