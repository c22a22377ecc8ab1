import { useNavigate } from "@tanstack/react-router";
import { lazy, type ReactNode, Suspense } from "react";
import { $api, errorMessage } from "../api.ts";
import { formatCost, formatTime, formatTokens } from "../format.ts";
import { useWorkspace } from "../layout.tsx";
import { overviewRoute } from "../router.tsx";
import {
  type ChartData,
  GROUPS,
  type GroupId,
  type GroupKey,
  groupChart,
  groupValue,
  type Metrics,
  type MetricValues,
  measureChart,
  metricsWindow,
  overviewRequests,
  sameWindowCharts,
  WINDOWS,
  type WindowId,
} from "./metrics.ts";

// uPlot arrives with the first chart, not with the console.
const TimeChart = lazy(() => import("./time-chart.tsx"));

const CHART_HEIGHT = 180;
const significant = new Intl.NumberFormat("en-US", { maximumSignificantDigits: 3 });
const usd = (value: number) => `$${significant.format(value)}`;
const count = (value: number) => significant.format(value);
const percent = (value: number) => `${(value * 100).toFixed(1)} %`;
const ms = (value: number) => (value < 1000 ? `${Math.round(value)} ms` : `${(value / 1000).toFixed(2)} s`);
const orDash = (value: number | null | undefined, format: (value: number) => string) =>
  value === null || value === undefined ? "–" : format(value);

/** A chart with its caption and, for whoever cannot see the canvas, the same numbers as a table. */
function ChartFigure({ title, data, format }: { title: string; data: ChartData; format: (value: number) => string }) {
  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      <Suspense fallback={<div className="chart-canvas" style={{ height: CHART_HEIGHT }} />}>
        <TimeChart data={data} format={format} />
      </Suspense>
      <details>
        <summary>{title} as a table</summary>
        <table className="grid">
          <thead>
            <tr>
              <th scope="col">Bucket (UTC)</th>
              {data.series.map((series) => (
                <th scope="col" key={series.label}>
                  {series.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {data.x.map((start, index) => (
              <tr key={start}>
                <td>{formatTime(start * 1000)}</td>
                {data.series.map((series) => (
                  <td key={series.label}>{orDash(series.values[index], format)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}

function Totals({ spans, traces, caption }: { spans: MetricValues; traces: MetricValues; caption: string }) {
  const rows: [string, ReactNode][] = [
    ["Traces", formatTokens(traces.traceCount ?? 0)],
    ["Spans", formatTokens(spans.spanCount ?? 0)],
    ["Error rate (spans)", orDash(spans.errorRate, percent)],
    ["Cost", formatCost(spans.cost ?? 0)],
    ["Input tokens", formatTokens(spans.inputTokens ?? 0)],
    ["Output tokens", formatTokens(spans.outputTokens ?? 0)],
    ["Latency p50", orDash(spans.latencyP50, ms)],
    ["Latency p90", orDash(spans.latencyP90, ms)],
    ["Latency p95", orDash(spans.latencyP95, ms)],
    ["Latency p99", orDash(spans.latencyP99, ms)],
  ];
  return (
    <table className="grid totals">
      <caption>{caption}</caption>
      <tbody>
        {rows.map(([label, value]) => (
          <tr key={label}>
            <th scope="row">{label}</th>
            <td>{value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Breakdown({ metrics, group, labelOf }: { metrics: Metrics; group: GroupId; labelOf: (id: string) => string }) {
  const groupLabel = GROUPS.find((candidate) => candidate.id === group)?.label ?? "Model";
  const nameOf = (key: Metrics["groups"][number]["key"]) => {
    const value = groupValue(key, group);
    return value === null ? `(no ${groupLabel.toLowerCase()})` : labelOf(value);
  };
  return (
    <>
      <table className="grid breakdown">
        <caption>Totals by {groupLabel.toLowerCase()}</caption>
        <thead>
          <tr>
            <th scope="col">{groupLabel}</th>
            <th scope="col">Spans</th>
            <th scope="col">Error rate</th>
            <th scope="col">Cost</th>
            <th scope="col">Input tokens</th>
            <th scope="col">Output tokens</th>
            <th scope="col">Latency p95</th>
          </tr>
        </thead>
        <tbody>
          {metrics.groups.map((row) => (
            <tr key={JSON.stringify(row.key)}>
              <th scope="row">{nameOf(row.key)}</th>
              <td>{formatTokens(row.totals.spanCount ?? 0)}</td>
              <td>{orDash(row.totals.errorRate, percent)}</td>
              <td>{formatCost(row.totals.cost ?? 0)}</td>
              <td>{formatTokens(row.totals.inputTokens ?? 0)}</td>
              <td>{formatTokens(row.totals.outputTokens ?? 0)}</td>
              <td>{orDash(row.totals.latencyP95, ms)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {metrics.truncated && <p className="hint">Only the 100 largest groups are shown.</p>}
      {metrics.groups.length > 0 && (
        <div className="charts">
          <ChartFigure
            title={`Cost by ${groupLabel.toLowerCase()} (USD)`}
            data={groupChart(metrics, "cost", nameOf)}
            format={usd}
          />
          <ChartFigure
            title={`Latency p95 by ${groupLabel.toLowerCase()}`}
            data={groupChart(metrics, "latencyP95", nameOf)}
            format={ms}
          />
        </div>
      )}
    </>
  );
}

/** Each numeric or boolean score's count and average over the window, and its average over time. */
function Scores({ metrics }: { metrics: Metrics }) {
  const nameOf = (key: GroupKey) => key.scoreName ?? "(unnamed)";
  if (metrics.groups.length === 0) {
    return <p className="hint">No numeric or boolean scores in this window (categorical scores are not averaged).</p>;
  }
  return (
    <>
      <table className="grid breakdown">
        <caption>Scores by name (booleans count 1 for true, 0 for false)</caption>
        <thead>
          <tr>
            <th scope="col">Score</th>
            <th scope="col">Count</th>
            <th scope="col">Average</th>
          </tr>
        </thead>
        <tbody>
          {metrics.groups.map((row) => (
            <tr key={JSON.stringify(row.key)}>
              <th scope="row">{nameOf(row.key)}</th>
              <td>{formatTokens(row.totals.scoreCount ?? 0)}</td>
              <td>{orDash(row.totals.scoreAverage, count)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="charts">
        <ChartFigure title="Average score by name" data={groupChart(metrics, "scoreAverage", nameOf)} format={count} />
      </div>
    </>
  );
}

/** The project's numbers over a window: totals, measures over time, a breakdown by model or prompt, and scores. */
export function Overview() {
  const { projectId } = useWorkspace();
  const search = overviewRoute.useSearch();
  const navigate = useNavigate();
  const windowId: WindowId = search.window ?? "24h";
  const group: GroupId = search.group ?? "model";
  const range = metricsWindow(windowId, Date.now());
  const requests = overviewRequests(projectId as string, range, group);

  const spans = $api.useQuery("post", "/logs/metrics", { body: requests.spans });
  const traces = $api.useQuery("post", "/logs/metrics", { body: requests.traces });
  const breakdown = $api.useQuery("post", "/logs/metrics", { body: requests.breakdown });
  const scores = $api.useQuery("post", "/logs/metrics", { body: requests.scores });
  const prompts = $api.useQuery(
    "get",
    "/prompts",
    { params: { query: { projectId: projectId as string, limit: 200 } } },
    { enabled: group === "prompt" },
  );
  const promptTitle = (id: string) => prompts.data?.prompts.find((prompt) => prompt.id === id)?.title ?? id;

  const choose = (next: { window?: WindowId; group?: GroupId }) =>
    void navigate({ to: "/overview", search: { ...search, project: projectId, ...next } });

  const windowLabel = WINDOWS.find((candidate) => candidate.id === windowId)?.label ?? "";
  const failed = spans.error ?? traces.error ?? breakdown.error ?? scores.error;
  const spanTotals = spans.data?.groups[0]?.totals ?? {};
  const traceTotals = traces.data?.groups[0]?.totals ?? {};
  return (
    <section aria-labelledby="overview-title" className="overview">
      <h1 id="overview-title">Overview</h1>
      <div className="filters">
        <label>
          Window{" "}
          <select value={windowId} onChange={(event) => choose({ window: event.target.value as WindowId })}>
            {WINDOWS.map((candidate) => (
              <option key={candidate.id} value={candidate.id}>
                {candidate.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Break down by{" "}
          <select value={group} onChange={(event) => choose({ group: event.target.value as GroupId })}>
            {GROUPS.map((candidate) => (
              <option key={candidate.id} value={candidate.id}>
                {candidate.label}
              </option>
            ))}
          </select>
        </label>
        <span className="hint">
          {formatTime(range.from)} – {formatTime(range.to)} UTC, by {range.bucket}
        </span>
      </div>
      {failed && (
        <p role="alert" className="error">
          {errorMessage(failed, "The metrics could not be read.")}
        </p>
      )}
      {spans.isLoading || traces.isLoading ? (
        <p>Loading…</p>
      ) : (
        spans.data &&
        traces.data && (
          <div className="overview-body">
            <Totals spans={spanTotals} traces={traceTotals} caption={`Totals, ${windowLabel.toLowerCase()}`} />
            <div className="charts">
              <ChartFigure
                title="Cost (USD)"
                data={measureChart(spans.data, [{ measure: "cost", label: "Cost" }])}
                format={usd}
              />
              <ChartFigure
                title="Tokens"
                data={measureChart(spans.data, [
                  { measure: "inputTokens", label: "Input" },
                  { measure: "outputTokens", label: "Output" },
                ])}
                format={count}
              />
              <ChartFigure
                title="Latency percentiles"
                data={measureChart(spans.data, [
                  { measure: "latencyP50", label: "p50" },
                  { measure: "latencyP90", label: "p90" },
                  { measure: "latencyP95", label: "p95" },
                  { measure: "latencyP99", label: "p99" },
                ])}
                format={ms}
              />
              <ChartFigure
                title="Error rate (spans)"
                data={measureChart(spans.data, [{ measure: "errorRate", label: "Error rate" }])}
                format={percent}
              />
              <ChartFigure
                title="Traces and spans"
                data={sameWindowCharts(
                  measureChart(traces.data, [{ measure: "traceCount", label: "Traces" }]),
                  measureChart(spans.data, [{ measure: "spanCount", label: "Spans" }]),
                )}
                format={count}
              />
            </div>
          </div>
        )
      )}
      <h2>By {GROUPS.find((candidate) => candidate.id === group)?.label.toLowerCase()}</h2>
      {breakdown.isLoading && <p>Loading…</p>}
      {breakdown.data && (
        <Breakdown metrics={breakdown.data} group={group} labelOf={group === "prompt" ? promptTitle : (id) => id} />
      )}
      <h2>Scores</h2>
      {scores.isLoading && <p>Loading…</p>}
      {scores.data && <Scores metrics={scores.data} />}
    </section>
  );
}
