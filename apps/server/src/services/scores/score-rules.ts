/**
 * What every score must satisfy, whoever writes it (the API or a worker): bounded text, a finite number, and
 * the score config of its name, when the project has one.
 */
import type { ErrorDetail } from "../../errors.ts";
import type { Database } from "../../store/schema.ts";
import { fromJson } from "../json.ts";
import { dataTypeOf, type ScoreValue } from "./score.ts";

export const MAX_SCORE_NAME_LENGTH = 200;
export const MAX_CATEGORY_LENGTH = 200;
export const MAX_COMMENT_LENGTH = 10_000;

interface ScoreFields {
  name: string;
  value: ScoreValue;
  comment: string | null;
}

/** The problems of one score's own fields (`field` prefixes each problem's field, e.g. `scores[3]`). */
export function scoreFieldProblems(score: ScoreFields, field: string): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  if (score.name.length < 1 || score.name.length > MAX_SCORE_NAME_LENGTH)
    problems.push({ field: `${field}.name`, issue: `must have 1 to ${MAX_SCORE_NAME_LENGTH} characters` });
  if (typeof score.value === "number" && !Number.isFinite(score.value))
    problems.push({ field: `${field}.value`, issue: "must be a finite number" });
  if (typeof score.value === "string" && (score.value.length < 1 || score.value.length > MAX_CATEGORY_LENGTH))
    problems.push({ field: `${field}.value`, issue: `a category must have 1 to ${MAX_CATEGORY_LENGTH} characters` });
  if (score.comment !== null && score.comment.length > MAX_COMMENT_LENGTH)
    problems.push({ field: `${field}.comment`, issue: `must have at most ${MAX_COMMENT_LENGTH} characters` });
  return problems;
}

type ConfigRow = Pick<Database["scoreConfigs"], "name" | "dataType" | "minValue" | "maxValue" | "categories">;

/** The rule of `config` that `value` breaks, as a sentence naming it; null when the value fits. */
export function configViolation(config: ConfigRow, value: ScoreValue): string | null {
  const rule = `score config "${config.name}"`;
  const type = dataTypeOf(value);
  if (type !== config.dataType) return `must be ${describeType(config.dataType)} (${rule})`;
  if (config.dataType === "numeric") {
    const min = config.minValue === null ? null : Number(config.minValue);
    const max = config.maxValue === null ? null : Number(config.maxValue);
    const numeric = value as number;
    if ((min !== null && numeric < min) || (max !== null && numeric > max))
      return `must be ${describeRange(min, max)} (${rule})`;
  }
  if (config.dataType === "categorical") {
    const categories = fromJson<string[]>(config.categories ?? "[]");
    if (!categories.includes(value as string))
      return `must be one of ${categories.map((category) => JSON.stringify(category)).join(", ")} (${rule})`;
  }
  return null;
}

function describeType(type: Database["scoreConfigs"]["dataType"]): string {
  if (type === "numeric") return "a number";
  return type === "boolean" ? "a boolean" : "a string category";
}

function describeRange(min: number | null, max: number | null): string {
  if (min !== null && max !== null) return `between ${min} and ${max}`;
  return min !== null ? `at least ${min}` : `at most ${max}`;
}
