/** The JSON evaluator: the output parsed as JSON, then compared with `expected` or validated against `schema`. */
import type { schemas } from "@pharos/contract";
import type { RowOutcome } from "./grade.ts";
import { validatorFor } from "./json-schema.ts";
import { fillPlaceholders } from "./placeholders.ts";
import { NO_OUTPUT, passOrFail, unknown, type Verdict } from "./verdict.ts";

type JsonConfig = schemas.JsonEvaluatorConfig;

// One surrounding fence: ``` with an optional info string (`json`) on its own line, then the body, then ```.
const CODE_FENCE = /^```(?:[\w+-]*[ \t]*\r?\n)?([\s\S]*?)```$/;

export function gradeJson(config: JsonConfig, outcome: RowOutcome): Verdict {
  if (outcome.output === null) return unknown(NO_OUTPUT);
  const parsed = parseJson(withoutCodeFence(outcome.output));
  if (!parsed.ok) return passOrFail(false, `output is not JSON: ${parsed.error}`);

  switch (config.mode) {
    case "valid-json":
      return passOrFail(true, "output is valid JSON");
    case "exact-match": {
      if (config.expected === undefined) return unknown("mode exact-match needs `expected`");
      const expected = parseJson(fillPlaceholders(config.expected, outcome.variables));
      if (!expected.ok) return unknown(`expected is not JSON once its placeholders are filled: ${expected.error}`);
      const difference = firstDifference(parsed.value, expected.value, "$");
      return passOrFail(difference === null, difference ?? "output equals the expected JSON");
    }
    case "schema": {
      if (config.schema === undefined) return unknown("mode schema needs `schema`");
      const compiled = validatorFor(config.schema);
      if ("error" in compiled) return unknown(`the schema is invalid: ${compiled.error}`);
      const errors = compiled.validate(parsed.value);
      return passOrFail(
        errors === null,
        errors === null ? "output matches the schema" : `output does not match the schema: ${errors}`,
      );
    }
  }
}

export function withoutCodeFence(output: string): string {
  const trimmed = output.trim();
  const fenced = CODE_FENCE.exec(trimmed);
  return fenced ? (fenced[1] as string).trim() : trimmed;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

/** Where two JSON values first differ (object key order ignored, array order significant), or null when equal. */
function firstDifference(actual: unknown, expected: unknown, path: string): string | null {
  const differs = `differs at ${path}: expected ${preview(expected)}, got ${preview(actual)}`;
  if (Array.isArray(expected) || Array.isArray(actual)) {
    if (!Array.isArray(expected) || !Array.isArray(actual)) return differs;
    if (actual.length !== expected.length) {
      return `differs at ${path}: expected ${expected.length} items, got ${actual.length}`;
    }
    for (const [index, item] of expected.entries()) {
      const difference = firstDifference(actual[index], item, `${path}[${index}]`);
      if (difference) return difference;
    }
    return null;
  }
  if (isObject(expected) || isObject(actual)) {
    if (!isObject(expected) || !isObject(actual)) return differs;
    for (const key of Object.keys(expected)) {
      if (!Object.hasOwn(actual, key)) return `missing ${memberPath(path, key)}`;
      const difference = firstDifference(actual[key], expected[key], memberPath(path, key));
      if (difference) return difference;
    }
    const extra = Object.keys(actual).find((key) => !Object.hasOwn(expected, key));
    return extra === undefined ? null : `unexpected ${memberPath(path, extra)}`;
  }
  return actual === expected ? null : differs;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const memberPath = (path: string, key: string) =>
  /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;

function preview(value: unknown): string {
  const text = JSON.stringify(value);
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
}
