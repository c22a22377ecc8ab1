/**
 * `{{column}}` placeholders in evaluator settings, filled from the row's variable values. A name the row has
 * no value for stays as written, so that a literal `{{…}}` in an expected text still matches itself.
 */
const PLACEHOLDER = /\{\{([A-Za-z0-9_-]{1,64})\}\}/g;

function fill(template: string, variables: Record<string, string>, insert: (value: string) => string): string {
  return template.replace(PLACEHOLDER, (placeholder, name: string) =>
    Object.hasOwn(variables, name) ? insert(variables[name] as string) : placeholder,
  );
}

export function fillPlaceholders(template: string, variables: Record<string, string>): string {
  return fill(template, variables, (value) => value);
}

/** For a regular expression: inserted values match literally, inside a character class too. */
export function fillRegexPlaceholders(pattern: string, variables: Record<string, string>): string {
  return fill(pattern, variables, escapeRegex);
}

function escapeRegex(value: string): string {
  return value.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");
}
