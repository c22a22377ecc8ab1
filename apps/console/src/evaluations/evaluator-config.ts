/**
 * The evaluator form's state and the `EvaluatorConfig` / `EvaluatorOnlineSettings` it means, both ways. The form
 * keeps every field as the text a person typed (one flat draft for all types, so switching the type keeps what was
 * typed); turning it into a request only checks what the browser must (JSON that does not parse, a number that
 * is not one). Every other rule (a bad regular expression, code that does not compile, bounds) is the API's,
 * whose messages the form shows. Kept free of React so it is tested on its own.
 */
import type { Schemas } from "../api.ts";

type Config = Schemas["EvaluatorConfig"];
export type EvaluatorType = Config["type"];
export type MatchOperator = Schemas["TextMatcherEvaluatorConfig"]["operator"];
export type JsonMode = Schemas["JsonEvaluatorConfig"]["mode"];
export type ComparisonOperator = Schemas["EvaluatorComparisonOperator"];
export type LatencyUnit = Schemas["LatencyEvaluatorConfig"]["unit"];
export type LengthUnit = Schemas["ResponseLengthEvaluatorConfig"]["unit"];

/** Each type with its label and family, in the order the form offers them. */
export const EVALUATOR_TYPES: readonly { type: EvaluatorType; label: string; group: string }[] = [
  { type: "llm-as-a-judge", label: "LLM as a judge", group: "AI-powered" },
  { type: "text-matcher", label: "Text matcher", group: "Code" },
  { type: "json", label: "JSON", group: "Code" },
  { type: "javascript", label: "JavaScript", group: "Code" },
  { type: "cost", label: "Cost", group: "Performance" },
  { type: "latency", label: "Latency", group: "Performance" },
  { type: "response-length", label: "Response length", group: "Performance" },
];
export const MATCH_OPERATORS: readonly MatchOperator[] = [
  "equals",
  "starts-with",
  "ends-with",
  "regex",
  "contains-any",
  "contains-all",
  "not-contains-any",
];
export const JSON_MODES: readonly JsonMode[] = ["valid-json", "exact-match", "schema"];
export const COMPARISONS: readonly ComparisonOperator[] = ["less-than", "greater-than", "equals"];
export const LATENCY_UNITS: readonly LatencyUnit[] = ["ms", "s"];
export const LENGTH_UNITS: readonly LengthUnit[] = ["words", "characters", "tokens"];
export const PROVIDER_NAMES: readonly Schemas["ProviderName"][] = ["openai", "anthropic", "openai-compatible"];

/** The `contains-*` operators take a list of strings (one a line in the form); the others one string. */
export const takesList = (operator: MatchOperator) =>
  operator.startsWith("contains") || operator === "not-contains-any";

export interface ConfigDraft {
  type: EvaluatorType;
  /** llm-as-a-judge */
  rubric: string;
  judgeProviderId: string;
  judgeProvider: string;
  judgeModel: string;
  /** text-matcher */
  matchOperator: MatchOperator;
  matchValue: string;
  caseSensitive: boolean;
  /** json */
  jsonMode: JsonMode;
  expected: string;
  schema: string;
  /** javascript */
  code: string;
  timeoutMs: string;
  /** cost, latency, response-length */
  comparison: ComparisonOperator;
  threshold: string;
  latencyUnit: LatencyUnit;
  lengthUnit: LengthUnit;
}

export interface OnlineDraft {
  sampleRate: string;
  /** The filters as JSON (an array of LogFilter conditions), as typed. */
  filters: string;
}

export const EMPTY_CONFIG: ConfigDraft = {
  type: "llm-as-a-judge",
  rubric: "",
  judgeProviderId: "",
  judgeProvider: "",
  judgeModel: "",
  matchOperator: "equals",
  matchValue: "",
  caseSensitive: true,
  jsonMode: "valid-json",
  expected: "",
  schema: "",
  code: "",
  timeoutMs: "5000",
  comparison: "less-than",
  threshold: "",
  latencyUnit: "ms",
  lengthUnit: "words",
};

/** The form's state for a saved configuration. */
export function draftOfConfig(config: Config): ConfigDraft {
  const draft: ConfigDraft = { ...EMPTY_CONFIG, type: config.type };
  switch (config.type) {
    case "llm-as-a-judge":
      return {
        ...draft,
        rubric: config.value,
        judgeProviderId: config.judgeModel?.providerId ?? "",
        judgeProvider: config.judgeModel?.provider ?? "",
        judgeModel: config.judgeModel?.model ?? "",
      };
    case "text-matcher":
      return {
        ...draft,
        matchOperator: config.operator,
        matchValue: Array.isArray(config.value) ? config.value.join("\n") : config.value,
        caseSensitive: config.caseSensitive ?? true,
      };
    case "json":
      return {
        ...draft,
        jsonMode: config.mode,
        expected: config.expected ?? "",
        schema: config.schema ? JSON.stringify(config.schema, null, 2) : "",
      };
    case "javascript":
      return { ...draft, code: config.code, timeoutMs: String(config.timeoutMs ?? 5000) };
    case "cost":
      return { ...draft, comparison: config.operator, threshold: String(config.threshold) };
    case "latency":
      return { ...draft, comparison: config.operator, threshold: String(config.threshold), latencyUnit: config.unit };
    case "response-length":
      return { ...draft, comparison: config.operator, threshold: String(config.threshold), lengthUnit: config.unit };
  }
}

export const draftOfOnline = (online: Schemas["EvaluatorOnlineSettings"] | undefined): OnlineDraft => ({
  sampleRate: String(online?.sampleRate ?? 1),
  filters: online?.filters?.length ? JSON.stringify(online.filters, null, 2) : "",
});

/** A problem the browser found before asking the API, named by the form field it belongs to. */
export interface FormProblem {
  field: string;
  issue: string;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: FormProblem };

const number = (field: string, text: string): Parsed<number> => {
  const value = Number(text);
  return text.trim() !== "" && Number.isFinite(value)
    ? { ok: true, value }
    : { ok: false, problem: { field, issue: "must be a number" } };
};

function json(field: string, text: string): Parsed<unknown> {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, problem: { field, issue: "is not valid JSON" } };
  }
}

/** The configuration the draft means, or the first problem in it. */
export function configOf(draft: ConfigDraft): Parsed<Config> {
  switch (draft.type) {
    case "llm-as-a-judge": {
      const judgeModel: Schemas["EvaluatorJudgeModel"] = {};
      if (draft.judgeProviderId) judgeModel.providerId = draft.judgeProviderId;
      if (draft.judgeProvider) judgeModel.provider = draft.judgeProvider as Schemas["ProviderName"];
      if (draft.judgeModel.trim()) judgeModel.model = draft.judgeModel.trim();
      return {
        ok: true,
        value: {
          type: "llm-as-a-judge",
          value: draft.rubric,
          judgeModel: Object.keys(judgeModel).length > 0 ? judgeModel : null,
        },
      };
    }
    case "text-matcher": {
      const lines = draft.matchValue.split("\n").filter((line) => line.trim() !== "");
      return {
        ok: true,
        value: {
          type: "text-matcher",
          operator: draft.matchOperator,
          value: takesList(draft.matchOperator) ? lines : draft.matchValue,
          caseSensitive: draft.caseSensitive,
        },
      };
    }
    case "json": {
      const config: Schemas["JsonEvaluatorConfig"] = { type: "json", mode: draft.jsonMode };
      if (draft.jsonMode === "exact-match") config.expected = draft.expected;
      if (draft.jsonMode === "schema") {
        const schema = json("config.schema", draft.schema);
        if (!schema.ok) return schema;
        if (typeof schema.value !== "object" || schema.value === null || Array.isArray(schema.value)) {
          return { ok: false, problem: { field: "config.schema", issue: "must be a JSON object" } };
        }
        config.schema = schema.value as Record<string, unknown>;
      }
      return { ok: true, value: config };
    }
    case "javascript": {
      const timeout = number("config.timeoutMs", draft.timeoutMs);
      if (!timeout.ok) return timeout;
      return { ok: true, value: { type: "javascript", code: draft.code, timeoutMs: timeout.value } };
    }
    case "cost":
    case "latency":
    case "response-length": {
      const threshold = number("config.threshold", draft.threshold);
      if (!threshold.ok) return threshold;
      const operator = draft.comparison;
      if (draft.type === "cost") return { ok: true, value: { type: "cost", operator, threshold: threshold.value } };
      if (draft.type === "latency") {
        return { ok: true, value: { type: "latency", operator, threshold: threshold.value, unit: draft.latencyUnit } };
      }
      return {
        ok: true,
        value: { type: "response-length", operator, threshold: threshold.value, unit: draft.lengthUnit },
      };
    }
  }
}

/** The online settings the draft means (empty filters: none), or the first problem in it. */
export function onlineOf(draft: OnlineDraft): Parsed<Schemas["EvaluatorOnlineSettings"]> {
  const sampleRate = number("online.sampleRate", draft.sampleRate);
  if (!sampleRate.ok) return sampleRate;
  if (draft.filters.trim() === "") return { ok: true, value: { sampleRate: sampleRate.value, filters: [] } };
  const filters = json("online.filters", draft.filters);
  if (!filters.ok) return filters;
  if (!Array.isArray(filters.value)) {
    return { ok: false, problem: { field: "online.filters", issue: "must be a JSON array of conditions" } };
  }
  // Each condition's grammar is the API's to judge (its 400 names the condition).
  return { ok: true, value: { sampleRate: sampleRate.value, filters: filters.value as Schemas["LogFilter"][] } };
}

/**
 * Whether an API problem (`details[].field`, a dotted path in the request such as `config.value`) belongs to the
 * form field that edits `path`: the field itself or something inside it (`online.filters.0.column`).
 */
export const belongsTo = (detailField: string, path: string) =>
  detailField === path || detailField.startsWith(`${path}.`);
