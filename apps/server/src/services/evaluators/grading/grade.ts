/**
 * Grades one row of an evaluation run with the run's evaluator: a pure function of the evaluator's config and
 * what the prompt's model call produced, except for the judge model, which the caller supplies.
 */
import type { schemas } from "@pharos/contract";
import type { JudgeInput } from "../../../llm/judge.ts";
import { gradeWithJavascript } from "./javascript.ts";
import { gradeJson } from "./json.ts";
import { gradeWithJudge } from "./llm-judge.ts";
import { gradeCost, gradeLatency, gradeResponseLength } from "./performance.ts";
import { gradeTextMatcher } from "./text-matcher.ts";
import type { Verdict } from "./verdict.ts";

export interface RowOutcome {
  /** The model's text output; null when the model call failed. */
  output: string | null;
  responseMessages: schemas.PromptMessage[];
  /** The row's values by variable name. */
  variables: Record<string, string>;
  /** USD; null when unknown (no price) or the call failed. */
  cost: number | null;
  /** Null when the call failed. */
  latencyMs: number | null;
  /** Completion tokens reported by the provider. */
  outputTokens: number | null;
}

export interface GradeDeps {
  /** Asks the judge model (llm-as-a-judge); the rubric's placeholders are already filled. */
  judge: (input: JudgeInput) => Promise<Verdict>;
}

/** The longest reason a result stores (EvaluationResult.reason). */
const MAX_REASON_LENGTH = 20000;

/** Grades one row. */
export async function grade(config: schemas.EvaluatorConfig, outcome: RowOutcome, deps: GradeDeps): Promise<Verdict> {
  const verdict = await gradeByType(config, outcome, deps);
  return {
    grade: verdict.grade,
    // An undecided row scores 0, whatever the judge or the user's code said.
    score: verdict.grade === "unknown" ? 0 : verdict.score,
    reason:
      verdict.reason.length > MAX_REASON_LENGTH ? `${verdict.reason.slice(0, MAX_REASON_LENGTH - 1)}…` : verdict.reason,
  };
}

function gradeByType(
  config: schemas.EvaluatorConfig,
  outcome: RowOutcome,
  deps: GradeDeps,
): Verdict | Promise<Verdict> {
  switch (config.type) {
    case "llm-as-a-judge":
      return gradeWithJudge(config, outcome, deps);
    case "text-matcher":
      return gradeTextMatcher(config, outcome);
    case "json":
      return gradeJson(config, outcome);
    case "javascript":
      return gradeWithJavascript(config, outcome);
    case "cost":
      return gradeCost(config, outcome);
    case "latency":
      return gradeLatency(config, outcome);
    case "response-length":
      return gradeResponseLength(config, outcome);
  }
}
