/** Building and checking verdicts: the grade of one row, its score from 0 to 1 and the reason. */
import type { Verdict } from "../../../llm/judge.ts";

export type { Verdict };

export const unknown = (reason: string): Verdict => ({ grade: "unknown", score: 0, reason });

/** The verdict of a yes/no check: pass with score 1 or fail with score 0. */
export const passOrFail = (passed: boolean, reason: string): Verdict =>
  passed ? { grade: "pass", score: 1, reason } : { grade: "fail", score: 0, reason };

export const NO_OUTPUT = "the row produced no output";

/** A value as it appears in a reason: JSON-quoted, long values cut so that a reason stays readable. */
export function quote(value: string, maxLength = 200): string {
  return JSON.stringify(value.length > maxLength ? `${value.slice(0, maxLength)}…` : value);
}

const GRADES: ReadonlySet<unknown> = new Set(["pass", "fail", "unknown"]);

/** What keeps a value from being a verdict, or null when it is one. */
export function verdictProblem(value: unknown): string | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "not an object";
  const { grade, score, reason } = value as Record<string, unknown>;
  if (!GRADES.has(grade)) return `grade must be "pass", "fail" or "unknown"`;
  if (typeof score !== "number" || !Number.isFinite(score) || score < 0 || score > 1) {
    return "score must be a number from 0 to 1";
  }
  if (typeof reason !== "string") return "reason must be a string";
  return null;
}
