/**
 * What the overview asks the metrics API (`searchLogMetrics`) and how its answer becomes chart series: the window
 * a person picks, the bucket that keeps the chart readable within the API's cap, and gap-filled series aligned
 * on every bucket of the window. Kept free of React so it is tested on its own.
 */
import type { Schemas } from "../api.ts";

export type Bucket = Schemas["LogMetricBucket"];
export type Measure = Schemas["LogMetricName"];
export type Metrics = Schemas["LogMetrics"];
export type MetricValues = Schemas["LogMetricValues"];
export type MetricsRequest = Schemas["SearchLogMetricsRequest"];

export const WINDOWS = [
  { id: "24h", label: "Last 24 hours", ms: 86_400_000 },
  { id: "7d", label: "Last 7 days", ms: 7 * 86_400_000 },
  { id: "30d", label: "Last 30 days", ms: 30 * 86_400_000 },
] as const;
export type WindowId = (typeof WINDOWS)[number]["id"];

/**
 * What the breakdown groups by: the URL's word for a metrics dimension. User, session and tag are kept in hour
 * and day buckets only (LogMetricDimension): every window below is charted in hours or days (`bucketFor`).
 */
export const GROUPS = [
  { id: "model", label: "Model", dimension: "model" },
  { id: "prompt", label: "Prompt", dimension: "promptId" },
  { id: "user", label: "User", dimension: "userId" },
  { id: "session", label: "Session", dimension: "sessionId" },
  { id: "tag", label: "Tag", dimension: "tag" },
] as const satisfies readonly { id: string; label: string; dimension: Schemas["LogMetricDimension"] }[];
export type GroupId = (typeof GROUPS)[number]["id"];

export interface OverviewSearch {
  window?: WindowId;
  group?: GroupId;
}

/** Reads the overview's choices from the URL, dropping what is unknown (the defaults apply). */
export function parseOverviewSearch(search: Record<string, unknown>): OverviewSearch {
  const window = WINDOWS.find((candidate) => candidate.id === search.window)?.id;
  const group = GROUPS.find((candidate) => candidate.id === search.group)?.id;
  return { ...(window && { window }), ...(group && { group }) };
}

export const BUCKET_MS: Record<Bucket, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };
/** The API refuses a window of more buckets than this (LogMetricBucket). */
export const BUCKET_CAP = 1440;
/** More points than this make a line chart a smear at console widths. */
export const POINT_BUDGET = 400;

/**
 * How many buckets the API counts for a window once `from` is rounded down and `to` up: one more than the
 * window's length when it does not start on a boundary.
 */
export const bucketsSpanned = (windowMs: number, bucket: Bucket) => Math.ceil(windowMs / BUCKET_MS[bucket]) + 1;

/** The finest bucket whose count stays within both the API's cap and the chart's point budget. */
export function bucketFor(windowMs: number): Bucket {
  const limit = Math.min(BUCKET_CAP, POINT_BUDGET);
  const fitting = (["minute", "hour", "day"] as const).find((bucket) => bucketsSpanned(windowMs, bucket) <= limit);
  return fitting ?? "day";
}

export interface MetricsWindow {
  from: number;
  to: number;
  bucket: Bucket;
}

/** The window ending at the end of the current bucket, so that the same choice asks the same question for a while. */
export function metricsWindow(windowId: WindowId, now: number): MetricsWindow {
  const ms = WINDOWS.find((candidate) => candidate.id === windowId)?.ms ?? WINDOWS[0].ms;
  const bucket = bucketFor(ms);
  const to = Math.ceil(now / BUCKET_MS[bucket]) * BUCKET_MS[bucket];
  return { from: to - ms, to, bucket };
}

/** Every measure over spans the overview charts (the API takes `traceCount` only on its own). */
export const SPAN_MEASURES = [
  "spanCount",
  "errorRate",
  "cost",
  "inputTokens",
  "outputTokens",
  "latencyP50",
  "latencyP90",
  "latencyP95",
  "latencyP99",
] as const satisfies readonly Measure[];

/** The breakdown's columns. */
export const BREAKDOWN_MEASURES = [
  "spanCount",
  "errorRate",
  "cost",
  "inputTokens",
  "outputTokens",
  "latencyP95",
] as const satisfies readonly Measure[];

/**
 * The four questions of the overview: span measures, trace counts, the breakdown by the chosen group, and the
 * scores by name (the API asks score measures apart, always by name: averaging different scores means nothing).
 */
export function overviewRequests(projectId: string, window: MetricsWindow, group: GroupId) {
  const base = { projectId, ...window };
  const dimension = GROUPS.find((candidate) => candidate.id === group)?.dimension ?? "model";
  return {
    spans: { ...base, metrics: [...SPAN_MEASURES] } satisfies MetricsRequest,
    traces: { ...base, metrics: ["traceCount"] } satisfies MetricsRequest,
    breakdown: { ...base, metrics: [...BREAKDOWN_MEASURES], groupBy: [dimension] } satisfies MetricsRequest,
    scores: { ...base, metrics: ["scoreCount", "scoreAverage"], groupBy: ["scoreName"] } satisfies MetricsRequest,
  };
}

/** Sums, counts and token totals are 0 in a bucket with nothing counted; rates and percentiles are undefined there. */
const ADDITIVE = new Set<Measure>(["traceCount", "spanCount", "cost", "inputTokens", "outputTokens", "scoreCount"]);

/** Bucket starts of the answer's window, in Unix seconds (uPlot's x scale). */
export function bucketStarts(metrics: Pick<Metrics, "from" | "to" | "bucket">): number[] {
  const step = BUCKET_MS[metrics.bucket];
  const starts: number[] = [];
  for (let start = metrics.from; start < metrics.to; start += step) starts.push(start / 1000);
  return starts;
}

/** One group's measure on every bucket of the window: gaps are 0 for sums and null (no line) for rates. */
export function alignedValues(
  metrics: Pick<Metrics, "from" | "to" | "bucket">,
  series: Schemas["LogMetricPoint"][],
  measure: Measure,
): (number | null)[] {
  const byStart = new Map(series.map((point) => [point.start / 1000, point.values[measure] ?? null]));
  const gap = ADDITIVE.has(measure) ? 0 : null;
  return bucketStarts(metrics).map((start) => byStart.get(start) ?? gap);
}

export interface ChartSeries {
  label: string;
  values: (number | null)[];
}

export interface ChartData {
  /** Bucket starts, Unix seconds. */
  x: number[];
  series: ChartSeries[];
}

/** Several measures of the answer's first (ungrouped) group, one series each. */
export function measureChart(metrics: Metrics, measures: readonly { measure: Measure; label: string }[]): ChartData {
  const points = metrics.groups[0]?.series ?? [];
  return {
    x: bucketStarts(metrics),
    series: measures.map(({ measure, label }) => ({ label, values: alignedValues(metrics, points, measure) })),
  };
}

/** The series of two answers over the same window on one chart (trace and span measures are asked apart). */
export const sameWindowCharts = (first: ChartData, second: ChartData): ChartData => ({
  x: first.x,
  series: [...first.series, ...second.series],
});

/** One measure split by group, the largest `limit` groups (the API lists the largest first). */
export function groupChart(metrics: Metrics, measure: Measure, labelOf: (key: GroupKey) => string, limit = 8) {
  return {
    x: bucketStarts(metrics),
    series: metrics.groups
      .slice(0, limit)
      .map((group) => ({ label: labelOf(group.key), values: alignedValues(metrics, group.series, measure) })),
  } satisfies ChartData;
}

export type GroupKey = Schemas["LogMetricGroupKey"];

/** A group key's value for the chosen grouping, `null` when its rows have none. */
export function groupValue(key: GroupKey, group: GroupId): string | null {
  const dimension = GROUPS.find((candidate) => candidate.id === group)?.dimension ?? "model";
  return key[dimension] ?? null;
}
