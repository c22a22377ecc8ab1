import { describe, expect, it } from "vitest";
import {
  BUCKET_CAP,
  bucketFor,
  bucketsSpanned,
  groupChart,
  groupValue,
  type Metrics,
  measureChart,
  metricsWindow,
  overviewRequests,
  parseOverviewSearch,
  sameWindowCharts,
  WINDOWS,
} from "./metrics.ts";

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 10, 25, 0, 0, 0);

describe("window to bucket", () => {
  it("picks the finest bucket that stays within the API's cap and the chart's point budget", () => {
    // A day of minutes is 1,441 buckets once an unaligned window is rounded: one over the cap.
    expect(bucketsSpanned(24 * HOUR, "minute")).toBe(BUCKET_CAP + 1);
    expect(bucketFor(24 * HOUR)).toBe("hour");
    expect(bucketFor(7 * 24 * HOUR)).toBe("hour");
    expect(bucketFor(30 * 24 * HOUR)).toBe("day");
    expect(bucketFor(HOUR)).toBe("minute");
  });

  it("ends the window at the end of the current bucket so that a choice asks the same question for a while", () => {
    const now = T0 + 5 * HOUR + 1234;
    expect(metricsWindow("24h", now)).toEqual({ from: T0 - 18 * HOUR, to: T0 + 6 * HOUR, bucket: "hour" });
    expect(metricsWindow("24h", now + 1000)).toEqual(metricsWindow("24h", now));
    expect(metricsWindow("30d", now)).toEqual({
      from: T0 + 24 * HOUR - 30 * 24 * HOUR,
      to: T0 + 24 * HOUR,
      bucket: "day",
    });
    for (const { id } of WINDOWS) {
      const { from, to, bucket } = metricsWindow(id, now);
      expect((to - from) / { minute: 60_000, hour: HOUR, day: 24 * HOUR }[bucket]).toBeLessThanOrEqual(BUCKET_CAP);
    }
  });

  it("reads window and group from the URL, dropping unknown values", () => {
    expect(parseOverviewSearch({ window: "7d", group: "prompt" })).toEqual({ window: "7d", group: "prompt" });
    expect(parseOverviewSearch({ window: "1y", group: "color" })).toEqual({});
  });

  it("asks trace counts apart from span measures, and groups the breakdown by the chosen dimension", () => {
    const window = { from: T0, to: T0 + 24 * HOUR, bucket: "hour" as const };
    const requests = overviewRequests("project_1", window, "prompt");
    expect(requests.traces.metrics).toEqual(["traceCount"]);
    expect(requests.spans.metrics).not.toContain("traceCount");
    expect(requests.spans.metrics.length).toBeLessThanOrEqual(10);
    expect(requests.breakdown.groupBy).toEqual(["promptId"]);
    expect(overviewRequests("project_1", window, "model").breakdown.groupBy).toEqual(["model"]);
    expect(requests.scores).toMatchObject({ metrics: ["scoreCount", "scoreAverage"], groupBy: ["scoreName"] });
  });
});

describe("metrics to chart series", () => {
  const answer: Metrics = {
    bucket: "hour",
    from: T0,
    to: T0 + 4 * HOUR,
    truncated: false,
    groups: [
      {
        key: { model: "gpt-4o" },
        totals: { cost: 0.3, latencyP95: 900 },
        series: [
          { start: T0, values: { cost: 0.1, latencyP95: 800 } },
          { start: T0 + 2 * HOUR, values: { cost: 0.2, latencyP95: 900 } },
        ],
      },
      {
        key: { model: null },
        totals: { cost: 0, latencyP95: 40 },
        series: [{ start: T0 + 3 * HOUR, values: { cost: 0, latencyP95: 40 } }],
      },
    ],
  };

  it("aligns every bucket of the window: empty buckets are 0 for sums and gaps for percentiles", () => {
    const chart = measureChart(answer, [
      { measure: "cost", label: "Cost" },
      { measure: "latencyP95", label: "p95" },
    ]);
    expect(chart.x).toEqual([T0 / 1000, T0 / 1000 + 3600, T0 / 1000 + 7200, T0 / 1000 + 10800]);
    expect(chart.series).toEqual([
      { label: "Cost", values: [0.1, 0, 0.2, 0] },
      { label: "p95", values: [800, null, 900, null] },
    ]);
  });

  it("gives one series per group, named by the caller, largest groups first", () => {
    const label = (key: Metrics["groups"][number]["key"]) => groupValue(key, "model") ?? "(none)";
    const chart = groupChart(answer, "cost", label, 1);
    expect(chart.series).toEqual([{ label: "gpt-4o", values: [0.1, 0, 0.2, 0] }]);
    expect(groupChart(answer, "cost", label).series.map((series) => series.label)).toEqual(["gpt-4o", "(none)"]);
  });

  it("puts two answers of the same window on one chart", () => {
    const traces = measureChart(answer, [{ measure: "cost", label: "A" }]);
    const spans = measureChart(answer, [{ measure: "latencyP95", label: "B" }]);
    const both = sameWindowCharts(traces, spans);
    expect(both.x).toEqual(traces.x);
    expect(both.series.map((series) => series.label)).toEqual(["A", "B"]);
  });

  it("has no points for an empty answer but still every bucket on the x axis", () => {
    const empty = { ...answer, groups: [] };
    expect(measureChart(empty, [{ measure: "spanCount", label: "Spans" }]).series[0]?.values).toEqual([0, 0, 0, 0]);
  });
});
