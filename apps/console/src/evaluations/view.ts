/**
 * What the evaluations screen keeps in the URL (so a run, a comparison or a filtered result list can be shared),
 * and how its figures read. Kept free of React so it is tested on its own.
 */
import type { Schemas } from "../api.ts";

export type Grade = Schemas["EvaluationGrade"];
export type RowChange = Schemas["EvaluationRowChange"];
export type RunStatus = Schemas["EvaluationRunStatus"];

export const GRADES: readonly Grade[] = ["pass", "fail", "unknown"];
export const CHANGES: readonly RowChange[] = ["regressed", "improved", "changed", "unchanged", "added", "removed"];

export interface EvaluationsSearch {
  /** The evaluator open in the editor: its id, or `new` for a new one. */
  evaluator?: string;
  /** The run whose progress and results are shown (the candidate of a comparison). */
  run?: string;
  /** Only the results with this grade. */
  grade?: Grade;
  /** The run the selected run is compared with. */
  baseline?: string;
  /** Only the compared rows with this change (`regressed`: "regressions only"). */
  change?: RowChange;
}

const id = (value: unknown) => (typeof value === "string" && /^[A-Za-z0-9_-]{1,80}$/.test(value) ? value : undefined);

/** Reads the screen's state from a URL's search object, dropping what is malformed instead of failing. */
export function parseEvaluationsSearch(search: Record<string, unknown>): EvaluationsSearch {
  const run = id(search.run);
  const parsed: EvaluationsSearch = {
    evaluator: id(search.evaluator),
    run,
    // A filter or a baseline means something only for a selected run.
    grade: run ? GRADES.find((grade) => grade === search.grade) : undefined,
    baseline: run ? id(search.baseline) : undefined,
    change: run ? CHANGES.find((change) => change === search.change) : undefined,
  };
  return Object.fromEntries(Object.entries(parsed).filter(([, value]) => value !== undefined)) as EvaluationsSearch;
}

const TERMINAL: readonly RunStatus[] = ["completed", "failed", "cancelled"];
/** Whether a run will not change any more (no need to poll it). */
export const isFinished = (status: RunStatus | undefined) => status !== undefined && TERMINAL.includes(status);
/** Whether a run may still be cancelled. */
export const isCancellable = (status: RunStatus) => status === "queued" || status === "running";

/** A share 0..1 as a percentage, `–` when there is none. */
export const formatRate = (rate: number | null | undefined) =>
  rate === null || rate === undefined ? "–" : `${(rate * 100).toFixed(1)} %`;

/** A signed difference, with the unit each kind of figure reads in; `±0` when nothing changed. */
export function formatDelta(kind: "rate" | "cost" | "latency" | "tokens", delta: number | null): string {
  if (delta === null) return "–";
  if (delta === 0) return "±0";
  const sign = delta > 0 ? "+" : "−";
  const size = Math.abs(delta);
  switch (kind) {
    case "rate":
      return `${sign}${(size * 100).toFixed(1)} pts`;
    case "cost":
      return `${sign}$${size.toFixed(6)}`;
    case "latency":
      return `${sign}${size < 1000 ? `${Math.round(size)} ms` : `${(size / 1000).toFixed(2)} s`}`;
    case "tokens":
      return `${sign}${size.toLocaleString("en-US")}`;
  }
}

/**
 * Whether a delta is good news, bad news or neither, for colouring: a higher pass rate is better, higher cost,
 * latency or token use worse.
 */
export function deltaTone(
  kind: "rate" | "cost" | "latency" | "tokens",
  delta: number | null,
): "better" | "worse" | "same" {
  if (delta === null || delta === 0) return "same";
  const higherIsBetter = kind === "rate";
  return delta > 0 === higherIsBetter ? "better" : "worse";
}

/** A run's label in pickers: when it was submitted, what it evaluated and how it ended. */
export function runLabel(
  run: Schemas["EvaluationRun"],
  evaluatorTitle: (id: string) => string,
  formatTime: (ms: number) => string,
) {
  const version = run.deploymentId ? "deployment" : "draft";
  return `${formatTime(run.timeline.submittedAt)} · ${evaluatorTitle(run.evaluatorId)} · ${version} · ${run.status}`;
}
