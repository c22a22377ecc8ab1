/** The performance evaluators: the row's cost, latency or output length compared with a threshold. */
import type { schemas } from "@pharos/contract";
import type { RowOutcome } from "./grade.ts";
import { NO_OUTPUT, passOrFail, unknown, type Verdict } from "./verdict.ts";

type Operator = schemas.EvaluatorComparisonOperator;

export function gradeCost(config: schemas.CostEvaluatorConfig, outcome: RowOutcome): Verdict {
  if (outcome.cost === null) return unknown("the cost is unknown: the model has no price or the call failed");
  return compare(`cost ${formatNumber(outcome.cost)} USD`, outcome.cost, config.operator, config.threshold, "");
}

export function gradeLatency(config: schemas.LatencyEvaluatorConfig, outcome: RowOutcome): Verdict {
  if (outcome.latencyMs === null) return unknown("the latency is unknown: the model call failed");
  // The measure is converted to the threshold's unit rather than the other way round: 1100 / 1000 is exactly
  // the number 1.1, while 1.1 * 1000 is not exactly 1100, and `equals` must hold after the conversion.
  const measured = config.unit === "s" ? outcome.latencyMs / 1000 : outcome.latencyMs;
  return compare(
    `latency ${formatNumber(measured)} ${config.unit}`,
    measured,
    config.operator,
    config.threshold,
    ` ${config.unit}`,
  );
}

export function gradeResponseLength(config: schemas.ResponseLengthEvaluatorConfig, outcome: RowOutcome): Verdict {
  if (outcome.output === null) return unknown(NO_OUTPUT);
  const length = measureLength(outcome.output, config.unit, outcome.outputTokens);
  if (length === null) return unknown("the provider reported no token count");
  return compare(`response length ${length} ${config.unit}`, length, config.operator, config.threshold, "");
}

function measureLength(output: string, unit: schemas.ResponseLengthEvaluatorConfig["unit"], tokens: number | null) {
  switch (unit) {
    case "words":
      return output.match(/\S+/g)?.length ?? 0;
    case "characters": {
      let codePoints = 0;
      for (const _ of output) codePoints++;
      return codePoints;
    }
    case "tokens":
      return tokens;
  }
}

const WORDING: Record<Operator, [holds: string, fails: string]> = {
  "less-than": ["is less than", "is not less than"],
  "greater-than": ["is greater than", "is not greater than"],
  equals: ["equals", "does not equal"],
};

function compare(measure: string, value: number, operator: Operator, threshold: number, unit: string): Verdict {
  const holds =
    operator === "less-than"
      ? value < threshold
      : operator === "greater-than"
        ? value > threshold
        : value === threshold;
  const [verb, negated] = WORDING[operator];
  return passOrFail(holds, `${measure} ${holds ? verb : negated} ${formatNumber(threshold)}${unit}`);
}

/** Up to 12 significant digits: enough to tell thresholds apart, without float noise such as 0.30000000000000004. */
function formatNumber(value: number): string {
  return String(Number(value.toPrecision(12)));
}
