/**
 * One row of a run, end to end: fill the prompt with the row's values, call the prompt's model through its
 * provider record, grade the output with the run's evaluator, and return the result to record. A row that
 * cannot be evaluated (an empty variable, no usable provider record, a model call that fails after its
 * retries) is a failed row with the reason in `error`, never a failed run.
 */
import type { schemas } from "@pharos/contract";
import type { Kysely } from "kysely";
import { costOf } from "../llm/call-cost.ts";
import { callModel, ModelCallError } from "../llm/call-model.ts";
import { judge } from "../llm/judge.ts";
import type { CallOptions } from "../llm/model-target.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import { grade } from "../services/evaluators/grading/grade.ts";
import { fromJson } from "../services/json.ts";
import { resolveModelTarget } from "../services/providers/resolve-target.ts";
import type { Database } from "../store/schema.ts";
import type { ClaimedItem } from "./claims.ts";
import type { ResultValues } from "./record-result.ts";
import { renderPrompt, valuesByColumnName } from "./render-prompt.ts";
import type { RunPlan } from "./run-plan.ts";

export interface EvaluationDeps {
  db: Kysely<Database>;
  secrets: SecretBox;
  call: Omit<CallOptions, "signal">;
}

const failedRow = (error: string): ResultValues => ({
  grade: "unknown",
  score: 0,
  reason: "",
  output: null,
  error,
  cost: 0,
  latency: 0,
  tokenCount: 0,
});

export async function evaluateItem(
  deps: EvaluationDeps,
  plan: RunPlan,
  item: ClaimedItem,
  signal: AbortSignal,
): Promise<ResultValues> {
  const values = valuesByColumnName(fromJson<Record<string, unknown>>(item.values), plan.columns);
  const rendered = renderPrompt(plan.promptVersion.messages, values);
  if ("missing" in rendered) {
    const names = rendered.missing.map((name) => `{{${name}}}`).join(", ");
    return failedRow(`The row has no value for the prompt variable${rendered.missing.length > 1 ? "s" : ""} ${names}.`);
  }

  const { config, tools } = plan.promptVersion;
  const resolved = await resolveModelTarget(deps.db, deps.secrets, plan.workspaceId, config);
  if ("error" in resolved) return failedRow(resolved.error);
  const options = { ...deps.call, signal };

  let call: Awaited<ReturnType<typeof callModel>>;
  try {
    call = await callModel(resolved.target, { messages: rendered.messages, tools, settings: config.settings }, options);
  } catch (error) {
    if (error instanceof ModelCallError) return failedRow(error.message);
    throw error;
  }

  const cost = costOf(resolved.target, call.inputTokens, call.outputTokens);
  const variables = Object.fromEntries(Object.entries(values).map(([name, value]) => [name, value ?? ""]));
  const verdict = await grade(
    plan.evaluatorConfig,
    {
      output: call.text,
      responseMessages: call.responseMessages,
      variables,
      cost,
      latencyMs: call.latencyMs,
      outputTokens: call.outputTokens,
    },
    {
      judge: async (input) => {
        const judgeTarget = await resolveModelTarget(
          deps.db,
          deps.secrets,
          plan.workspaceId,
          judgeChoice(plan.evaluatorConfig, config),
        );
        if ("error" in judgeTarget) return { grade: "unknown", score: 0, reason: `Judge: ${judgeTarget.error}` };
        return judge(judgeTarget.target, input, options);
      },
    },
  );
  return {
    ...verdict,
    output: call.text,
    error: null,
    cost: cost ?? 0,
    latency: call.latencyMs,
    tokenCount: (call.inputTokens ?? 0) + (call.outputTokens ?? 0),
  };
}

/**
 * The judge's model: the evaluator's `judgeModel` fields, the rest from the prompt's configuration. A judge
 * naming another provider kind does not inherit the prompt's pinned provider record.
 */
function judgeChoice(evaluator: schemas.EvaluatorConfig, prompt: schemas.PromptConfig) {
  const chosen = evaluator.type === "llm-as-a-judge" ? (evaluator.judgeModel ?? {}) : {};
  const sameKind = chosen.provider === undefined || chosen.provider === prompt.provider;
  return {
    providerId: chosen.providerId ?? (sameKind ? prompt.providerId : null),
    provider: chosen.provider ?? prompt.provider,
    model: chosen.model ?? prompt.model,
  };
}
