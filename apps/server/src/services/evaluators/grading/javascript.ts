/** The JavaScript evaluator: the user's code grades the row, in the QuickJS sandbox. */
import type { schemas } from "@pharos/contract";
import type { RowOutcome } from "./grade.ts";
import { MEMORY_LIMIT_BYTES, runInSandbox } from "./sandbox.ts";
import { NO_OUTPUT, unknown, type Verdict, verdictProblem } from "./verdict.ts";

const EXPECTED_SHAPE = "{grade, score, reason}";

export async function gradeWithJavascript(
  config: schemas.JavascriptEvaluatorConfig,
  outcome: RowOutcome,
): Promise<Verdict> {
  if (outcome.output === null) return unknown(NO_OUTPUT);
  const timeoutMs = config.timeoutMs ?? 5000;
  const data = {
    output: outcome.output,
    completion: outcome.output,
    variables: outcome.variables,
    response: outcome.responseMessages,
  };
  const result = await runInSandbox(config.code, data, timeoutMs);
  switch (result.kind) {
    case "returned": {
      const problem = verdictProblem(result.value);
      if (problem === null) return result.value as Verdict;
      return unknown(`returned ${describe(result.value)} instead of ${EXPECTED_SHAPE}: ${problem}`);
    }
    case "does-not-compile":
      return unknown(`does not compile: ${result.error}`);
    case "threw":
      return unknown(`threw: ${result.error}`);
    case "timed-out":
      return unknown(`exceeded the ${timeoutMs} ms time limit`);
    case "out-of-memory":
      return unknown(`exceeded the ${MEMORY_LIMIT_BYTES / (1024 * 1024)} MB memory limit`);
    case "never-settled":
      return unknown("returned a promise that never settles");
    case "engine-failed":
      return unknown(`the sandbox failed: ${result.error}`);
  }
}

function describe(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
