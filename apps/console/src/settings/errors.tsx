/**
 * The API's refusals, shown where they belong: a 400's `details` naming a field go next to that field, anything
 * else above the form.
 */
import type { Schemas } from "../api.ts";

type ErrorBody = Partial<Schemas["Error"]> | undefined;

/** The issues the API reported for `field` or any field under it (`maskingRules` covers `maskingRules.0.pattern`). */
export function fieldIssues(error: unknown, field: string): string[] {
  const details = (error as ErrorBody)?.error?.details ?? [];
  return details
    .filter((detail) => detail.field === field || detail.field?.startsWith(`${field}.`))
    .map((detail) => (detail.field === field ? detail.issue : `${detail.field}: ${detail.issue}`));
}

/** An inline message under a field, linked to it by id so screen readers read it with the field. */
export function FieldError({ id, error, field }: { id: string; error: unknown; field: string }) {
  const issues = fieldIssues(error, field);
  if (issues.length === 0) return null;
  return (
    <span id={id} role="alert" className="error field-error">
      {issues.join(" ")}
    </span>
  );
}
