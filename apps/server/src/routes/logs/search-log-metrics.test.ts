import { describe, expect, it } from "vitest";
import { addHistogramText, Histogram } from "../../services/metrics/latency-histogram.ts";
import { backfillRollups } from "../../store/migrations/0013-metric-rollups.ts";
import { backfillDimensionRollups } from "../../store/migrations/0021-dimension-rollups.ts";
import { compactHistograms } from "../../store/migrations/0024-compact-histograms.ts";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore, type Harness } from "../../testing/harness.ts";
import {
  type Body,
  createTrace,
  missingId,
  newProject,
  newPrompt,
  postSpan,
  T0,
} from "../../testing/log-write-fixtures.ts";
import { hexId, jsonRequest, sendOtlp } from "../../testing/otel-fixtures.ts";
import { seededRandom } from "../../testing/seeded-random.ts";

const HOUR = 3_600_000;
const MINUTE = 60_000;
const QUANTILES = { latencyP50: 0.5, latencyP90: 0.9, latencyP95: 0.95, latencyP99: 0.99 } as const;
const ALL_SPAN_METRICS = [
  "spanCount",
  "errorRate",
  "cost",
  "inputTokens",
  "outputTokens",
  ...Object.keys(QUANTILES),
] as const;

const query = (h: Harness, body: Body, key?: string) => h.request("POST", "/logs/metrics", { body, key });

async function metrics(h: Harness, body: Body) {
  const reply = await query(h, body);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body;
}

const MODELS = [
  ["openai", "gpt-4o-mini"],
  ["openai", "gpt-4o"],
  ["anthropic", "claude-sonnet"],
] as const;

interface RawSpan {
  startedAt: number;
  status: string;
  contentType: string;
  latency: number;
  model: string | null;
  provider: string | null;
  promptId: string | null;
  cost: number | null;
  promptTokens: number | null;
  completionTokens: number | null;
}

/** Random traces over three hours through POST /logs/trace and POST /logs/span; the spans as stored. */
async function randomLogs(h: Harness, projectId: string, seed: number, prompts: string[]): Promise<RawSpan[]> {
  const r = seededRandom(seed);
  for (let trace = 0; trace < 24; trace += 1) {
    const startedAt = T0 + r.int(3 * HOUR);
    const span = (): Body => {
      const begin = startedAt + r.int(5_000);
      // Latencies over four orders of magnitude, so that the histograms' buckets are far apart.
      const latency = 1 + Math.floor(10 ** (r.next() * 4.5));
      const status = r.pick(["success", "success", "failure", "unknown"]);
      const promptId = r.next() < 0.5 ? r.pick(prompts) : undefined;
      if (r.next() < 0.6) {
        const [provider, model] = r.pick(MODELS);
        const input = r.int(500);
        const output = r.int(300);
        return {
          name: "llm",
          status,
          startedAt: begin,
          endedAt: begin + latency,
          ...(promptId && { promptId }),
          content: {
            type: "Model",
            provider,
            model,
            input: '{"messages":[]}',
            output: JSON.stringify({
              messages: [],
              tokenUsage: { promptTokens: input, completionTokens: output, totalTokens: input + output },
            }),
            ...(r.next() < 0.8 && { cost: r.int(10_000) / 1_000 }),
          },
        };
      }
      return {
        name: "step",
        status,
        startedAt: begin,
        endedAt: begin + latency,
        content: { type: r.pick(["Tool", "Retrieval", "my-custom"]), input: "{}", output: "{}" },
      };
    };
    const spans = Array.from({ length: 1 + r.int(5) }, span);
    const { traceId } = await createTrace(h, {
      projectId,
      trace: { name: r.pick(["checkout", "support-chat", "search"]), status: "success", startedAt },
      spans,
    });
    if (r.next() < 0.5) {
      const reply = await postSpan(h, { projectId, span: { ...span(), traceId } });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    }
  }
  return h.store.db
    .selectFrom("logSpans")
    .select([
      "startedAt",
      "status",
      "contentType",
      "latency",
      "model",
      "provider",
      "promptId",
      "cost",
      "promptTokens",
      "completionTokens",
    ])
    .where("projectId", "=", projectId)
    .execute();
}

/** The measures of raw spans, as the rollups must give them (percentiles exact here). */
function expected(spans: readonly RawSpan[]) {
  const latencies = spans.map((span) => span.latency).sort((a, b) => a - b);
  const exact = Object.fromEntries(
    Object.entries(QUANTILES).map(([name, q]) => [
      name,
      latencies[Math.max(1, Math.ceil(q * latencies.length)) - 1] as number,
    ]),
  );
  return {
    spanCount: spans.length,
    errorRate: spans.filter((span) => span.status === "failure").length / spans.length,
    cost: spans.reduce((sum, span) => sum + (span.cost ?? 0), 0),
    inputTokens: spans.reduce((sum, span) => sum + (span.promptTokens ?? 0), 0),
    outputTokens: spans.reduce((sum, span) => sum + (span.completionTokens ?? 0), 0),
    exact,
  };
}

/** `values` equal the raw spans' measures: sums exactly (cost to float rounding), percentiles within 2 %. */
function expectMeasures(values: Body, spans: readonly RawSpan[]): void {
  const want = expected(spans);
  expect(values.spanCount).toBe(want.spanCount);
  expect(values.errorRate).toBeCloseTo(want.errorRate, 12);
  expect(values.cost).toBeCloseTo(want.cost, 9);
  expect(values.inputTokens).toBe(want.inputTokens);
  expect(values.outputTokens).toBe(want.outputTokens);
  for (const [name, exact] of Object.entries(want.exact)) {
    expect(Math.abs(values[name] - exact), `${name}: ${values[name]} vs ${exact}`).toBeLessThanOrEqual(
      0.02 * exact + 1e-9,
    );
  }
}

/** An answer with its costs rounded: sums of the same costs added in another order differ in the last bits. */
const rounded = (answer: Body) =>
  JSON.parse(
    JSON.stringify(answer, (key, value) => (key === "cost" && typeof value === "number" ? value.toFixed(9) : value)),
  );

function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(keyOf(item), [...(groups.get(keyOf(item)) ?? []), item]);
  return groups;
}

describeEachStore("searchLogMetrics", (use) => {
  for (const seed of [1, 2, 3]) {
    it(`totals and hourly series equal the raw spans' measures, percentiles within 2 % (random logs, seed ${seed})`, async () => {
      const h = use();
      const projectId = await newProject(h);
      const prompts = [await newPrompt(h, projectId), await newPrompt(h, projectId)];
      const spans = await randomLogs(h, projectId, seed, prompts);
      const window = { projectId, from: T0, to: T0 + 4 * HOUR, bucket: "hour", metrics: ALL_SPAN_METRICS };

      const all = await metrics(h, window);
      expect(all.groups).toHaveLength(1);
      expect(all.groups[0].key).toEqual({});
      expectMeasures(all.groups[0].totals, spans);
      const byHour = groupBy(spans, (span) => String(Math.floor(span.startedAt / HOUR) * HOUR));
      expect(all.groups[0].series.map((point: Body) => String(point.start))).toEqual([...byHour.keys()].sort());
      for (const point of all.groups[0].series) expectMeasures(point.values, byHour.get(String(point.start)) ?? []);

      // Grouped by two dimensions: each group is the raw spans with its values.
      const grouped = await metrics(h, { ...window, groupBy: ["model", "contentType"] });
      const byModel = groupBy(spans, (span) => JSON.stringify({ model: span.model, contentType: span.contentType }));
      expect(grouped.groups).toHaveLength(byModel.size);
      for (const group of grouped.groups) expectMeasures(group.totals, byModel.get(JSON.stringify(group.key)) ?? []);
      const counts = grouped.groups.map((group: Body) => group.totals.spanCount);
      expect(counts).toEqual([...counts].sort((a, b) => b - a));

      // One dimension in hour buckets: answered from the per-dimension rollups, the same as from the combinations
      // (a filter on a second dimension that matches everything sends the query to the combination rollups).
      const byModelOnly = await metrics(h, { ...window, groupBy: ["model"] });
      const modelGroups = groupBy(spans, (span) => JSON.stringify({ model: span.model }));
      expect(byModelOnly.groups).toHaveLength(modelGroups.size);
      for (const group of byModelOnly.groups) {
        expectMeasures(group.totals, modelGroups.get(JSON.stringify(group.key)) ?? []);
      }
      const viaCombinations = await metrics(h, {
        ...window,
        groupBy: ["model"],
        filters: [{ column: "contentType", operator: "not-equals", value: "none-such" }],
      });
      expect(rounded(viaCombinations)).toEqual(rounded(byModelOnly));
      const promptOnly = await metrics(h, { ...window, promptId: prompts[1] });
      const ofPrompt = spans.filter((span) => span.promptId === prompts[1]);
      if (ofPrompt.length === 0) expect(promptOnly.groups).toEqual([]);
      else expectMeasures(promptOnly.groups[0].totals, ofPrompt);
      const daily = await metrics(h, { ...window, bucket: "day", groupBy: ["contentType"] });
      const dailyViaCombinations = await metrics(h, { ...window, bucket: "day", groupBy: ["contentType", "model"] });
      for (const group of daily.groups) {
        const parts = dailyViaCombinations.groups.filter(
          (part: Body) => part.key.contentType === group.key.contentType,
        );
        expect(group.totals.spanCount).toBe(parts.reduce((sum: number, part: Body) => sum + part.totals.spanCount, 0));
      }

      // Filters: a prompt, a provider, content types.
      const filtered = await metrics(h, {
        ...window,
        promptId: prompts[0],
        provider: "openai",
        filters: [{ column: "contentType", operator: "in", value: ["Model", "ModelStream"] }],
      });
      const matching = spans.filter((span) => span.promptId === prompts[0] && span.provider === "openai");
      if (matching.length === 0) expect(filtered.groups).toEqual([]);
      else expectMeasures(filtered.groups[0].totals, matching);
      const notTools = await metrics(h, {
        ...window,
        groupBy: ["provider"],
        filters: [{ column: "contentType", operator: "not-equals", value: "Tool" }],
      });
      const byProvider = groupBy(
        spans.filter((span) => span.contentType !== "Tool"),
        (span) => JSON.stringify({ provider: span.provider }),
      );
      expect(notTools.groups).toHaveLength(byProvider.size);
      for (const group of notTools.groups)
        expectMeasures(group.totals, byProvider.get(JSON.stringify(group.key)) ?? []);
    });
  }

  it("counts concurrent writes exactly (their batches' deltas summed per key), and migrations 0013 and 0021 rebuild the same rollups", async () => {
    const h = use();
    const projectId = await newProject(h);
    const prompts = [await newPrompt(h, projectId)];
    await Promise.all(Array.from({ length: 4 }, (_, index) => randomLogs(h, projectId, 10 + index, prompts)));
    const spans = await randomLogs(h, projectId, 20, prompts);
    const window = { projectId, from: T0, to: T0 + 4 * HOUR, bucket: "minute", metrics: ALL_SPAN_METRICS };
    const written = await metrics(h, { ...window, groupBy: ["model", "promptId"] });
    const grouped = groupBy(spans, (span) => JSON.stringify({ model: span.model, promptId: span.promptId }));
    expect(written.groups).toHaveLength(grouped.size);
    for (const group of written.groups) expectMeasures(group.totals, grouped.get(JSON.stringify(group.key)) ?? []);
    const traces = await metrics(h, { ...window, metrics: ["traceCount"], groupBy: ["traceName"] });

    // Logs stored before the migration: its backfill computes what the writes kept.
    await h.store.db.deleteFrom("logSpanRollups").execute();
    await h.store.db.deleteFrom("logTraceRollups").execute();
    expect((await metrics(h, window)).groups).toEqual([]);
    await backfillRollups(h.store.db);
    expect(await metrics(h, { ...window, groupBy: ["model", "promptId"] })).toEqual(written);
    expect(await metrics(h, { ...window, metrics: ["traceCount"], groupBy: ["traceName"] })).toEqual(traces);

    // Migration 0021 builds the per-dimension rollups from the combination rollups: the same as the writes kept.
    const perDimension = [
      { ...window, bucket: "hour", groupBy: ["model"] },
      { ...window, bucket: "hour" },
      { ...window, bucket: "day", groupBy: ["contentType"] },
      { ...window, bucket: "hour", promptId: prompts[0] },
    ];
    const kept = await Promise.all(perDimension.map((body) => metrics(h, body)));
    expect(kept[1].groups[0].totals.spanCount).toBeGreaterThan(0);
    await h.store.db.deleteFrom("logSpanDimensionRollups").execute();
    expect((await metrics(h, perDimension[1] as Body)).groups).toEqual([]);
    await backfillDimensionRollups(h.store.db);
    for (const [index, body] of perDimension.entries()) {
      expect(rounded(await metrics(h, body))).toEqual(rounded(kept[index]));
    }
  });

  it("migration 0024 converts the JSON histograms stored before it, which writes still add to until then", async () => {
    const h = use();
    const projectId = await newProject(h);
    const prompts = [await newPrompt(h, projectId)];
    const first = await randomLogs(h, projectId, 30, prompts);
    const tables = ["logSpanRollups", "logSpanDimensionRollups"] as const;
    const stored = async () =>
      (await Promise.all(tables.map((table) => h.store.db.selectFrom(table).select("latencyHistogram").execute())))
        .flat()
        .map((row) => row.latencyHistogram);
    // The rollups as stored before the migration: each histogram a JSON object of bucket → count.
    for (const text of new Set(await stored())) {
      const histogram = new Histogram();
      addHistogramText(histogram, text);
      const pairs = [...histogram.counts.entries()].filter(([, count]) => count > 0);
      const json = `{${pairs.map(([bucket, count]) => `"${bucket}":${count}`).join(",")}}`;
      for (const table of tables) {
        await h.store.db
          .updateTable(table)
          .set({ latencyHistogram: json })
          .where("latencyHistogram", "=", text)
          .execute();
      }
    }
    expect((await stored()).every((text) => text.startsWith("{"))).toBe(true);
    const window = { projectId, from: T0, to: T0 + 4 * HOUR, metrics: ALL_SPAN_METRICS };
    const queries: Body[] = [
      { ...window, bucket: "minute", groupBy: ["model", "promptId"] },
      { ...window, bucket: "hour", groupBy: ["model"] },
      { ...window, bucket: "day" },
    ];
    const check = async (spans: RawSpan[]) => {
      for (const body of queries) {
        const answer = await metrics(h, body);
        const grouped = groupBy(spans, (span) =>
          JSON.stringify(
            Object.fromEntries(
              ((body.groupBy ?? []) as ("model" | "promptId")[]).map((column) => [column, span[column]]),
            ),
          ),
        );
        expect(answer.groups).toHaveLength(grouped.size);
        for (const group of answer.groups) expectMeasures(group.totals, grouped.get(JSON.stringify(group.key)) ?? []);
      }
    };
    // Read as they are, and added to by writes (whose upserts add compact histograms to JSON ones).
    await check(first);
    const all = await randomLogs(h, projectId, 31, prompts);
    expect(all.length).toBeGreaterThan(first.length);
    await check(all);
    await compactHistograms(h.store.dialect).up(h.store.db);
    const converted = await stored();
    expect(converted.some((text) => text.startsWith("{"))).toBe(false);
    expect(converted.every((text) => /^\d+:\d*(,\d*)*$/.test(text))).toBe(true);
    await check(all);
  });

  it("moves an OTLP trace's count when its root span arrives late, renaming and moving it", async () => {
    const h = use();
    const traceId = hexId(16);
    const root = hexId(8);
    const send = async (span: Body & { spanId: string }) => {
      const reply = await sendOtlp(h, { body: JSON.stringify(jsonRequest([{ traceId, ...span }])) });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    };
    // The child first: the trace is created pending, named after it, starting with it (second minute).
    await send({ spanId: hexId(8), parentSpanId: root, name: "tool-call", startMs: 70_000, endMs: 70_500 });
    const window = { projectId: h.projectId, from: T0, to: T0 + 5 * MINUTE, bucket: "minute" };
    const before = await metrics(h, { ...window, metrics: ["traceCount"], groupBy: ["traceName"] });
    expect(before.groups).toEqual([
      {
        key: { traceName: "tool-call" },
        totals: { traceCount: 1 },
        series: [{ start: T0 + MINUTE, values: { traceCount: 1 } }],
      },
    ]);
    await send({ spanId: root, name: "agent-run", startMs: 0, endMs: 90_000 });
    const after = await metrics(h, { ...window, metrics: ["traceCount"], groupBy: ["traceName"] });
    expect(after.groups).toEqual([
      {
        key: { traceName: "agent-run" },
        totals: { traceCount: 1 },
        series: [{ start: T0, values: { traceCount: 1 } }],
      },
    ]);
    const spans = await metrics(h, { ...window, metrics: ["spanCount"] });
    expect(spans.groups[0].series).toEqual([
      { start: T0, values: { spanCount: 1 } },
      { start: T0 + MINUTE, values: { spanCount: 1 } },
    ]);
  });

  it("counts traces per minute by trace name, with name filters", async () => {
    const h = use();
    const projectId = await newProject(h);
    const names = ["checkout", "checkout", "search", "checkout"];
    for (const [index, name] of names.entries()) {
      await createTrace(h, { projectId, trace: { name, status: "success", startedAt: T0 + index * 40_000 } });
    }
    const reply = await metrics(h, {
      projectId,
      from: T0,
      to: T0 + 3 * MINUTE,
      bucket: "minute",
      metrics: ["traceCount"],
      groupBy: ["traceName"],
    });
    expect(reply.groups).toEqual([
      {
        key: { traceName: "checkout" },
        totals: { traceCount: 3 },
        series: [
          { start: T0, values: { traceCount: 2 } },
          { start: T0 + 2 * MINUTE, values: { traceCount: 1 } },
        ],
      },
      {
        key: { traceName: "search" },
        totals: { traceCount: 1 },
        series: [{ start: T0 + MINUTE, values: { traceCount: 1 } }],
      },
    ]);
    const filtered = await metrics(h, {
      projectId,
      from: T0,
      to: T0 + 3 * MINUTE,
      bucket: "day",
      metrics: ["traceCount"],
      filters: [{ column: "name", operator: "not-in", value: ["search"] }],
    });
    expect(filtered.groups[0].totals).toEqual({ traceCount: 3 });
  });

  it("groups by deployment environment and filters by one, merging the environment's deployments", async () => {
    const h = use();
    const projectId = await newProject(h);
    const promptId = await newPrompt(h, projectId);
    const otherPromptId = await newPrompt(h, projectId);
    const deploy = async (prompt: string, deploymentEnvironmentId: string) => {
      const deployment = await h.request("POST", `/prompts/${prompt}/deployments`, {
        body: { deploymentEnvironmentId },
      });
      expect(deployment.status, JSON.stringify(deployment.body)).toBe(201);
      return deployment.body.id as string;
    };
    const environment = async (name: string) => {
      const reply = await h.request("POST", `/projects/${projectId}/deployment-environments`, { body: { name } });
      expect(reply.status).toBe(201);
      return reply.body.id as string;
    };
    const production = await environment("production");
    const staging = await environment("staging");
    const empty = await environment("preview");
    const [first, second, staged] = [
      await deploy(promptId, production),
      await deploy(otherPromptId, production),
      await deploy(promptId, staging),
    ];
    const span = (latency: number, deploymentId?: string) => ({
      name: "step",
      status: "success",
      startedAt: T0 + 10,
      endedAt: T0 + 10 + latency,
      ...(deploymentId && { deploymentId, promptId: deploymentId === second ? otherPromptId : promptId }),
      content: { type: "Tool", input: "{}", output: "{}" },
    });
    await createTrace(h, {
      projectId,
      trace: { name: "t", status: "success", startedAt: T0 },
      spans: [span(10, first), span(10, first), span(1_000, second), span(10, staged), span(10)],
    });
    const window = { projectId, from: T0, to: T0 + HOUR, bucket: "hour", metrics: ["spanCount"] };
    const grouped = await metrics(h, { ...window, groupBy: ["deploymentEnvironmentId"] });
    expect(grouped.groups.map((group: Body) => [group.key, group.totals.spanCount])).toEqual(
      [
        [{ deploymentEnvironmentId: production }, 3],
        [{ deploymentEnvironmentId: null }, 1],
        [{ deploymentEnvironmentId: staging }, 1],
      ].sort((a, b) => (b[1] as number) - (a[1] as number) || (JSON.stringify(a[0]) < JSON.stringify(b[0]) ? -1 : 1)),
    );
    // The two deployments' rows are one point: their histograms merged (p50 of 10, 10, 1000 is 10; p99 1000).
    const latencies = await metrics(h, {
      ...window,
      metrics: ["latencyP50", "latencyP99"],
      deploymentEnvironmentId: production,
    });
    const [point] = latencies.groups[0].series;
    expect(Math.abs(point.values.latencyP50 - 10)).toBeLessThanOrEqual(0.2);
    expect(Math.abs(point.values.latencyP99 - 1_000)).toBeLessThanOrEqual(20);
    expect(latencies.groups[0].totals).toEqual(point.values);
    // Asked in any order, each percentile is the same.
    const reversed = await metrics(h, {
      ...window,
      metrics: ["latencyP99", "latencyP50"],
      deploymentEnvironmentId: production,
    });
    expect(reversed.groups[0].series[0].values).toEqual(point.values);
    const stagedOnly = await metrics(h, { ...window, deploymentEnvironmentId: staging });
    expect(stagedOnly.groups[0].totals).toEqual({ spanCount: 1 });
    // An environment nothing is deployed to has no spans.
    expect((await metrics(h, { ...window, deploymentEnvironmentId: empty })).groups).toEqual([]);
  });

  it("rounds the window to the bucket and leaves out what is outside it", async () => {
    const h = use();
    const projectId = await newProject(h);
    const step = (startedAt: number) => ({
      name: "s",
      status: "success",
      startedAt,
      endedAt: startedAt + 5,
      content: { type: "Tool", input: "{}", output: "{}" },
    });
    await createTrace(h, {
      projectId,
      trace: { name: "t", status: "success", startedAt: T0 },
      spans: [step(T0), step(T0 + HOUR - 1), step(T0 + HOUR)],
    });
    const reply = await metrics(h, {
      projectId,
      from: T0 + 30 * MINUTE,
      to: T0 + 31 * MINUTE,
      bucket: "hour",
      metrics: ["spanCount", "errorRate"],
    });
    expect(reply).toEqual({
      bucket: "hour",
      from: T0,
      to: T0 + HOUR,
      groups: [
        {
          key: {},
          totals: { spanCount: 2, errorRate: 0 },
          series: [{ start: T0, values: { spanCount: 2, errorRate: 0 } }],
        },
      ],
      truncated: false,
    });
  });

  describe("bad input: 400, nothing answered", () => {
    const base = (h: Harness) => ({
      projectId: h.projectId,
      from: T0,
      to: T0 + HOUR,
      bucket: "hour",
      metrics: ["spanCount"],
    });
    const cases: [string, (h: Harness) => Body, string][] = [
      ["an inverted window", (h) => ({ ...base(h), from: T0 + HOUR, to: T0 }), "to"],
      ["an empty window", (h) => ({ ...base(h), to: T0 }), "to"],
      ["1,441 minute buckets", (h) => ({ ...base(h), bucket: "minute", to: T0 + 1441 * MINUTE }), "to"],
      ["61 days of hours", (h) => ({ ...base(h), to: T0 + 61 * 24 * HOUR }), "to"],
      ["an unknown group-by", (h) => ({ ...base(h), groupBy: ["user"] }), "groupBy.0"],
      ["three group-bys", (h) => ({ ...base(h), groupBy: ["model", "provider", "promptId"] }), "groupBy"],
      ["a group-by given twice", (h) => ({ ...base(h), groupBy: ["model", "model"] }), "groupBy.1"],
      ["an unknown metric", (h) => ({ ...base(h), metrics: ["latencyP42"] }), "metrics.0"],
      ["no metric", (h) => ({ ...base(h), metrics: [] }), "metrics"],
      ["a metric given twice", (h) => ({ ...base(h), metrics: ["cost", "cost"] }), "metrics.1"],
      ["an unknown bucket", (h) => ({ ...base(h), bucket: "week" }), "bucket"],
      ["traceCount with a span measure", (h) => ({ ...base(h), metrics: ["traceCount", "cost"] }), "metrics"],
      ["traceCount by model", (h) => ({ ...base(h), metrics: ["traceCount"], groupBy: ["model"] }), "groupBy.0"],
      ["a span measure by trace name", (h) => ({ ...base(h), groupBy: ["traceName"] }), "groupBy.0"],
      ["traceCount for a model", (h) => ({ ...base(h), metrics: ["traceCount"], model: "gpt-4o" }), "model"],
      [
        "a filter the rollups cannot answer",
        (h) => ({ ...base(h), filters: [{ column: "latency", operator: "gt", value: 100 }] }),
        "filters.0",
      ],
      [
        "a substring filter",
        (h) => ({ ...base(h), filters: [{ column: "contentType", operator: "contains", value: "Mod" }] }),
        "filters.0",
      ],
      [
        "a trace-name filter on spans",
        (h) => ({ ...base(h), filters: [{ column: "name", operator: "equals", value: "x" }] }),
        "filters.0",
      ],
      [
        "a content-type filter on traces",
        (h) => ({
          ...base(h),
          metrics: ["traceCount"],
          filters: [{ column: "contentType", operator: "equals", value: "Tool" }],
        }),
        "filters.0",
      ],
    ];
    for (const [name, body, field] of cases) {
      it(`rejects ${name}`, async () => {
        const h = use();
        const reply = await query(h, body(h));
        expectError(reply, 400, "VALIDATION_ERROR");
        expect(reply.body.error.details.map((detail: Body) => detail.field)).toContain(field);
      });
    }
  });

  it("answers 404 for a prompt or environment not of the project", async () => {
    const h = use();
    const body = { projectId: h.projectId, from: T0, to: T0 + HOUR, bucket: "hour", metrics: ["spanCount"] };
    expectError(await query(h, { ...body, promptId: missingId("prompt") }), 404, "RESOURCE_NOT_FOUND");
    expectError(await query(h, { ...body, deploymentEnvironmentId: missingId("env") }), 404, "RESOURCE_NOT_FOUND");
    expectError(await query(h, { ...body, projectId: missingId("project") }), 404, "RESOURCE_NOT_FOUND");
  });
});
