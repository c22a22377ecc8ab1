/**
 * `pharos eval run`: the CI gate. It talks to a Pharos server over HTTP with an API key, through the SDK (never
 * the database): starts an evaluation run, waits for it (a progress bar on a terminal), compares it with a
 * baseline run when given one, prints a summary (a table, or JSON), and fails (exit 1) when the pass rate is
 * under `--min-pass-rate` or the regressions over `--max-regressions`.
 */
import { createClient, type PharosClient, unwrap } from "@pharos/client";
import type { schemas } from "@pharos/contract";
import type { CliIo, Values } from "./cli.ts";
import { CommandError, UsageError } from "./cli-errors.ts";
import { DEFAULT_POLL_MS, DEFAULT_TIMEOUT_SECONDS } from "./eval-run.ts";

type Run = schemas.EvaluationRun;
type Comparison = schemas.EvaluationComparison;

const DEFAULT_URL = "http://127.0.0.1:8080";

/** Regressed rows the table names (the JSON has the count; the comparison operation lists every one). */
const LISTED_REGRESSIONS = 20;
const TERMINAL: readonly Run["status"][] = ["completed", "failed", "cancelled"];

interface GateOptions {
  promptId: string;
  deploymentId?: string;
  evaluatorId?: string;
  baselineId?: string;
  minPassRate?: number;
  maxRegressions?: number;
  pollMs: number;
  timeoutMs: number;
}

function gateOptions(values: Values): GateOptions {
  const text = (name: string) => {
    const value = values[name];
    if (value === undefined) return undefined;
    if (typeof value !== "string" || value.trim() === "") throw new UsageError(`--${name} needs a value`);
    return value.trim();
  };
  const number = (name: string, valid: (n: number) => boolean, what: string) => {
    const value = text(name);
    if (value === undefined) return undefined;
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || !valid(parsed)) throw new UsageError(`--${name} must be ${what}, not "${value}"`);
    return parsed;
  };
  const promptId = text("prompt");
  if (!promptId) throw new UsageError("--prompt <id> is required");
  const deploymentId = text("deployment");
  if (deploymentId !== undefined && values.draft === true) {
    throw new UsageError("give --deployment <id> or --draft, not both");
  }
  const baselineId = text("baseline");
  const maxRegressions = number("max-regressions", (n) => Number.isInteger(n) && n >= 0, "an integer ≥ 0");
  if (maxRegressions !== undefined && baselineId === undefined) {
    throw new UsageError("--max-regressions needs --baseline <runId> to count regressions against");
  }
  return {
    promptId,
    deploymentId,
    evaluatorId: text("evaluator"),
    baselineId,
    minPassRate: number("min-pass-rate", (n) => n >= 0 && n <= 1, "a number from 0 to 1"),
    maxRegressions,
    pollMs:
      number("poll-interval", (n) => Number.isInteger(n) && n >= 10, "an integer ≥ 10 (milliseconds)") ??
      DEFAULT_POLL_MS,
    timeoutMs:
      1000 *
      (number("timeout", (n) => Number.isInteger(n) && n >= 1, "an integer ≥ 1 (seconds)") ?? DEFAULT_TIMEOUT_SECONDS),
  };
}

/** Polls the run until it ends, drawing a progress bar on stderr when it is a terminal. */
async function waitForRun(client: PharosClient, io: CliIo, run: Run, options: GateOptions, json: boolean) {
  const path = { promptId: options.promptId, evaluationId: run.runId };
  const drawing = io.interactive === true && !json;
  const deadline = Date.now() + options.timeoutMs;
  let current = run;
  while (!TERMINAL.includes(current.status)) {
    if (drawing) io.stderr(`\r${progressBar(current)}`);
    if (Date.now() >= deadline) {
      if (drawing) io.stderr("\n");
      // A gate that gave up does not leave the run spending provider calls nobody will read.
      const cancelled = await client.POST("/prompts/{promptId}/evaluations/{evaluationId}/cancel", {
        params: { path },
      });
      const { completedRows, failedRows, totalRows } = current.progress;
      throw new CommandError(
        `run ${run.runId} did not finish within --timeout ${options.timeoutMs / 1000} s (${current.status}, ${completedRows + failedRows}/${totalRows} rows); ${cancelled.error ? "cancelling it failed, cancel it yourself" : "it was cancelled"}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(options.pollMs, Math.max(0, deadline - Date.now()))));
    current = unwrap(await client.GET("/prompts/{promptId}/evaluations/{evaluationId}", { params: { path } }));
  }
  if (drawing) io.stderr(`\r${progressBar(current)}\n`);
  return current;
}

export function progressBar(run: Run, width = 30): string {
  const { totalRows, completedRows, failedRows, percent } = run.progress;
  const filled = Math.round((percent / 100) * width);
  const done = completedRows + failedRows;
  return `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${percent.toFixed(0).padStart(3)}% ${done}/${totalRows} rows (${run.status})`;
}

const passRateOf = (run: Run) => {
  const { passRuns, failRuns, unknownRuns } = run.metrics;
  const results = passRuns + failRuns + unknownRuns;
  return results === 0 ? null : passRuns / results;
};

/** Why the gate fails, one sentence each; none: it passes. */
function gateFailures(options: GateOptions, passRate: number | null, regressions: number | null): string[] {
  const failures: string[] = [];
  if (options.minPassRate !== undefined && (passRate === null || passRate < options.minPassRate)) {
    failures.push(`pass rate ${percent(passRate)} is under --min-pass-rate ${percent(options.minPassRate)}`);
  }
  if (options.maxRegressions !== undefined && regressions !== null && regressions > options.maxRegressions) {
    failures.push(`${regressions} regressed row(s), over --max-regressions ${options.maxRegressions}`);
  }
  return failures;
}

const percent = (rate: number | null) => (rate === null ? "n/a" : `${(rate * 100).toFixed(1)}%`);
const signed = (value: number, text: string) => (value > 0 ? `+${text}` : text);

function summaryTable(run: Run, comparison: Comparison | null, regressedRows: string[], failures: string[]): string {
  const metrics = run.metrics;
  const rows: string[][] = [["", "candidate", ...(comparison ? ["baseline", "delta"] : [])]];
  const add = (label: string, candidate: string, baseline?: string, delta?: string) =>
    rows.push([label, candidate, ...(comparison ? [baseline ?? "", delta ?? ""] : [])]);
  const totals = comparison?.totals;
  add(
    "pass rate",
    percent(passRateOf(run)),
    totals && percent(totals.baseline.passRate),
    totals?.delta.passRate == null
      ? ""
      : signed(totals.delta.passRate, `${(totals.delta.passRate * 100).toFixed(1)} pts`),
  );
  add(
    "pass / fail / unknown",
    `${metrics.passRuns} / ${metrics.failRuns} / ${metrics.unknownRuns}`,
    totals && `${totals.baseline.passRuns} / ${totals.baseline.failRuns} / ${totals.baseline.unknownRuns}`,
  );
  add(
    "cost (USD)",
    metrics.totalCost.toFixed(6),
    totals?.baseline.totalCost.toFixed(6),
    totals && signed(totals.delta.totalCost, totals.delta.totalCost.toFixed(6)),
  );
  add(
    "latency (ms, total)",
    metrics.totalLatency.toFixed(0),
    totals?.baseline.totalLatency.toFixed(0),
    totals && signed(totals.delta.totalLatency, totals.delta.totalLatency.toFixed(0)),
  );
  add(
    "tokens",
    String(metrics.totalTokenCount),
    totals && String(totals.baseline.totalTokenCount),
    totals && signed(totals.delta.totalTokenCount, String(totals.delta.totalTokenCount)),
  );
  if (totals) {
    const { regressed, improved, changed, unchanged, added, removed } = totals.changes;
    add("rows regressed", String(regressed));
    add("rows improved", String(improved));
    add("rows changed / unchanged", `${changed} / ${unchanged}`);
    if (added + removed > 0) add("rows only in one run", `${added} new, ${removed} gone`);
  }
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length))) ?? [];
  const lines = rows.map((row) =>
    row
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[0] ?? 0) : cell.padStart(widths[column] ?? 0)))
      .join("  ")
      .trimEnd(),
  );
  const header = `Evaluation run ${run.runId} (${run.status}, ${run.progress.totalRows} rows)${comparison ? ` vs baseline ${comparison.baselineId}` : ""}`;
  const regressedLines =
    regressedRows.length > 0 ? ["", "Regressed rows:", ...regressedRows.map((rowId) => `  ${rowId}`)] : [];
  const verdict = failures.length === 0 ? "Gate: passed" : `Gate: FAILED: ${failures.join("; ")}`;
  return `${[header, "", ...lines, ...regressedLines, "", verdict].join("\n")}\n`;
}

export async function evalRun({ values, io, json }: { values: Values; io: CliIo; json: boolean }) {
  const options = gateOptions(values);
  const apiKey = io.env.PHAROS_API_KEY?.trim();
  if (!apiKey) throw new UsageError("set PHAROS_API_KEY to a key of the workspace (read and write)");
  const baseUrl = (values.url as string | undefined)?.trim() || io.env.PHAROS_URL?.trim() || DEFAULT_URL;
  let client: PharosClient;
  try {
    client = createClient({ baseUrl, apiKey });
  } catch {
    throw new UsageError(`--url / PHAROS_URL must be a URL, not "${baseUrl}"`);
  }

  const started = unwrap(
    await client.POST("/prompts/{promptId}/evaluations", {
      params: { path: { promptId: options.promptId } },
      body: {
        ...(options.evaluatorId && { evaluatorId: options.evaluatorId }),
        ...(options.deploymentId && { deploymentId: options.deploymentId }),
      },
    }),
  );
  if (!json) io.stderr(`Started evaluation run ${started.runId} of prompt ${options.promptId}.\n`);
  const run = await waitForRun(client, io, started, options, json);
  if (run.status !== "completed") {
    throw new CommandError(`run ${run.runId} ended ${run.status}${run.error ? `: ${run.error}` : ""}`);
  }

  let comparison: Comparison | null = null;
  let regressedRows: string[] = [];
  if (options.baselineId) {
    comparison = unwrap(
      await client.GET("/prompts/{promptId}/evaluations/{evaluationId}/comparison", {
        params: {
          path: { promptId: options.promptId, evaluationId: run.runId },
          query: { baselineId: options.baselineId, change: "regressed", limit: LISTED_REGRESSIONS },
        },
      }),
    );
    regressedRows = comparison.rows.map((row) => row.rowId);
  }
  const passRate = passRateOf(run);
  const regressions = comparison?.totals.changes.regressed ?? null;
  const failures = gateFailures(options, passRate, regressions);
  if (json) {
    const report = {
      runId: run.runId,
      promptId: run.promptId,
      status: run.status,
      passRate,
      progress: run.progress,
      metrics: run.metrics,
      comparison: comparison && {
        baselineId: comparison.baselineId,
        totals: comparison.totals,
        regressedRowIds: regressedRows,
      },
      thresholds: { minPassRate: options.minPassRate ?? null, maxRegressions: options.maxRegressions ?? null },
      passed: failures.length === 0,
      failures,
    };
    io.stdout(`${JSON.stringify(report)}\n`);
  } else {
    io.stdout(summaryTable(run, comparison, regressedRows, failures));
  }
  if (failures.length > 0) throw new CommandError(`gate failed: ${failures.join("; ")}`);
}
