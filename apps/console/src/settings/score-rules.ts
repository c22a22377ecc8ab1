/** A score config's rule as the form writes it and as the list reads it. Free of React, tested alone. */
import type { Schemas } from "../api.ts";

type ScoreRule = Schemas["ScoreRule"];

/** How a rule reads in the list: `0 – 1`, `good, bad`, `true / false`. */
export function describeRule(rule: ScoreRule): string {
  if (rule.type === "categorical") return rule.categories.join(", ");
  if (rule.type === "boolean") return "true / false";
  return `${rule.min ?? "−∞"} – ${rule.max ?? "∞"}`;
}

/** The rule the form's fields mean; an empty bound is open, categories are comma-separated. */
export function ruleFromForm(type: ScoreRule["type"], min: string, max: string, categories: string): ScoreRule {
  if (type === "boolean") return { type };
  if (type === "categorical") {
    return {
      type,
      categories: categories
        .split(",")
        .map((category) => category.trim())
        .filter(Boolean),
    };
  }
  const bound = (text: string) => (text.trim() === "" ? null : Number(text));
  return { type, min: bound(min), max: bound(max) };
}
