/** LLM as a judge: the rubric, filled with the row's values, and the output go to the judge model. */
import type { schemas } from "@pharos/contract";
import type { GradeDeps, RowOutcome } from "./grade.ts";
import { fillPlaceholders } from "./placeholders.ts";
import { NO_OUTPUT, unknown, type Verdict, verdictProblem } from "./verdict.ts";

export async function gradeWithJudge(
  config: schemas.LlmAsAJudgeEvaluatorConfig,
  outcome: RowOutcome,
  deps: GradeDeps,
): Promise<Verdict> {
  if (outcome.output === null) return unknown(NO_OUTPUT);
  const rubric = fillPlaceholders(config.value, outcome.variables);
  let verdict: Verdict;
  try {
    verdict = await deps.judge({ rubric, variables: outcome.variables, output: outcome.output });
  } catch (error) {
    // The judge is meant to report its failures as `unknown`; a throw must still not fail the row's grading.
    return unknown(`the judge failed: ${(error as Error).message}`);
  }
  const problem = verdictProblem(verdict);
  return problem === null ? verdict : unknown(`the judge gave no usable verdict: ${problem}`);
}
