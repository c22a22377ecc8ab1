/**
 * One queued live span, graded by one evaluator with the grading code of evaluation runs (grade.ts): the span
 * stands for a run's row, its text output as the model's output, its recorded `variables` as the row's
 * values, its cost and latency as the call's. The span's model is not called again; only an
 * `llm-as-a-judge` evaluator calls a model (its judge). A span that cannot be graded (a variable the evaluator
 * names that the span did not record, a judge provider that fails, a sandbox timeout) gets the reason as its
 * result's `error`, never silence.
 */
import type { schemas } from "@pharos/contract";
import type { Kysely } from "kysely";
import { judge } from "../llm/judge.ts";
import type { CallOptions } from "../llm/model-target.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import { grade } from "../services/evaluators/grading/grade.ts";
import { fromJson } from "../services/json.ts";
import { resolveModelTarget } from "../services/providers/resolve-target.ts";
import type { Database } from "../store/schema.ts";
import { type ClaimedSpan, spanKey } from "./online-claims.ts";

export interface SpanGrade {
  grade: "pass" | "fail" | "unknown";
  score: number;
  reason: string;
  /** Why the span could not be graded; null when it was. */
  error: string | null;
  judgeCalls: number;
}

export interface SpanGradingDeps {
  db: Kysely<Database>;
  secrets: SecretBox;
  call: Omit<CallOptions, "signal">;
}

/** What grading needs of the span and its evaluator; undefined when either is gone. */
export interface SpanToGrade {
  workspaceId: string;
  projectId: string;
  traceId: string;
  content: string;
  cost: number | null;
  latency: number;
  completionTokens: number | null;
  evaluatorTitle: string;
  evaluatorConfig: schemas.EvaluatorConfig;
}

export const notGraded = (error: string): SpanGrade => ({
  grade: "unknown",
  score: 0,
  reason: "",
  error,
  judgeCalls: 0,
});

/**
 * What grading needs of each claimed span, in one query for the lot (a claim takes up to 50 spans: one read
 * instead of 50 on the connection that log writes share); a span or evaluator gone since is absent.
 */
export async function readSpansToGrade(
  db: Kysely<Database>,
  claimed: readonly ClaimedSpan[],
): Promise<Map<string, SpanToGrade>> {
  const found = new Map<string, SpanToGrade>();
  if (claimed.length === 0) return found;
  const rows = await db
    .selectFrom("onlineEvaluations")
    .innerJoin("logSpans", "logSpans.id", "onlineEvaluations.spanId")
    .innerJoin("evaluators", "evaluators.id", "onlineEvaluations.evaluatorId")
    .select([
      "onlineEvaluations.spanId",
      "onlineEvaluations.evaluatorId",
      "logSpans.workspaceId",
      "logSpans.projectId",
      "logSpans.traceId",
      "logSpans.content",
      "logSpans.cost",
      "logSpans.latency",
      "logSpans.completionTokens",
      "evaluators.title",
      "evaluators.config",
    ])
    .where("onlineEvaluations.spanId", "in", [...new Set(claimed.map((span) => span.spanId))])
    .where("onlineEvaluations.evaluatorId", "in", [...new Set(claimed.map((span) => span.evaluatorId))])
    .execute();
  const wanted = new Set(claimed.map(spanKey));
  for (const row of rows) {
    const key = spanKey(row);
    if (!wanted.has(key)) continue; // a pair of a claimed span and another claimed span's evaluator
    found.set(key, {
      workspaceId: row.workspaceId,
      projectId: row.projectId,
      traceId: row.traceId,
      content: row.content,
      cost: row.cost === null ? null : Number(row.cost),
      latency: Number(row.latency),
      completionTokens: row.completionTokens === null ? null : Number(row.completionTokens),
      evaluatorTitle: row.title,
      evaluatorConfig: fromJson(row.config),
    });
  }
  return found;
}

export async function gradeSpan(deps: SpanGradingDeps, span: SpanToGrade, signal: AbortSignal): Promise<SpanGrade> {
  const content = fromJson<Record<string, unknown>>(span.content);
  const { output, responseMessages } = outputOf(content.output);
  const variables = variablesOf(content.variables);
  const config = span.evaluatorConfig;
  const missing = placeholdersOf(config).filter((name) => !Object.hasOwn(variables, name));
  if (missing.length > 0) {
    const names = missing.map((name) => `{{${name}}}`).join(", ");
    return notGraded(
      `The span recorded no value for the variable${missing.length > 1 ? "s" : ""} ${names} the evaluator uses; record it in the Model content's variables.`,
    );
  }
  let judgeCalls = 0;
  const verdict = await grade(
    config,
    {
      output,
      responseMessages,
      variables,
      cost: span.cost,
      latencyMs: span.latency,
      outputTokens: span.completionTokens,
    },
    {
      judge: async (input) => {
        const chosen = config.type === "llm-as-a-judge" ? (config.judgeModel ?? {}) : {};
        const choice = {
          providerId: chosen.providerId ?? null,
          provider: chosen.provider ?? stringOrNull(content.provider),
          model: chosen.model ?? stringOrNull(content.model),
        };
        const target = await resolveModelTarget(deps.db, deps.secrets, span.workspaceId, choice);
        if ("error" in target) throw new GradingFailure(`Judge: ${target.error}`);
        judgeCalls += 1;
        return judge(target.target, input, { ...deps.call, signal });
      },
    },
  ).catch((error: unknown) => {
    if (error instanceof GradingFailure) return error;
    throw error;
  });
  if (verdict instanceof GradingFailure) return { ...notGraded(verdict.message), judgeCalls };
  // Grading answers `unknown` with its reason when it could not decide (a judge call that failed after its
  // retries, a sandbox timeout, a cost without a price): a span that could not be graded, with that reason.
  const error = verdict.grade === "unknown" ? verdict.reason || "The evaluator gave no grade." : null;
  return { ...verdict, error, judgeCalls };
}

class GradingFailure extends Error {}

const stringOrNull = (value: unknown) => (typeof value === "string" ? value : null);

/**
 * The span's text output: the text parts of the platform form's messages (`{"messages": [...]}`), else the
 * output as written (JSON text of a provider's native payload, or a custom span's text).
 */
function outputOf(output: unknown): { output: string; responseMessages: schemas.PromptMessage[] } {
  const text = typeof output === "string" ? output : output === undefined ? "" : JSON.stringify(output);
  let parsed: unknown;
  try {
    parsed = typeof output === "string" ? JSON.parse(output) : output;
  } catch {
    return { output: text, responseMessages: [] };
  }
  const messages = (parsed as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(messages)) return { output: text, responseMessages: [] };
  const responseMessages = messages as schemas.PromptMessage[];
  const parts = responseMessages.flatMap((message) =>
    Array.isArray(message?.content)
      ? message.content.flatMap((part) =>
          part?.modality === "text" && typeof part.value === "string" ? [part.value] : [],
        )
      : [],
  );
  return { output: parts.join(""), responseMessages };
}

function variablesOf(variables: unknown): Record<string, string> {
  if (typeof variables !== "object" || variables === null) return {};
  return Object.fromEntries(
    Object.entries(variables as Record<string, { value?: unknown }>).map(([name, variable]) => [
      name,
      typeof variable?.value === "string" ? variable.value : "",
    ]),
  );
}

const PLACEHOLDER = /\{\{([A-Za-z0-9_-]{1,64})\}\}/g;

/**
 * The variables an evaluator's settings name: the judge's rubric, the JSON evaluator's expected value, the
 * text matcher's values. (A JavaScript evaluator reads `variables` itself; a literal `{{…}}` it holds is code.)
 */
function placeholdersOf(config: schemas.EvaluatorConfig): string[] {
  if (config.type === "javascript") return [];
  const names = new Set<string>();
  for (const match of JSON.stringify(config).matchAll(PLACEHOLDER)) names.add(match[1] as string);
  return [...names];
}
