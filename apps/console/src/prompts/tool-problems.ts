import type { Validator } from "@cfworker/json-schema";

/**
 * The schema errors of `value` as short sentences. The validator reports each failure with the chain of its
 * enclosing failures ("item 0 does not match", "property definition does not match", …); only the innermost ones
 * say what is wrong, so a location is reported only when no deeper one is.
 */
export function toolProblems(validator: Validator, value: unknown): string[] {
  const { errors } = validator.validate(value);
  const innermost = errors.filter(
    (error) =>
      !errors.some((other) => other !== error && other.instanceLocation.startsWith(`${error.instanceLocation}/`)),
  );
  const sentences = innermost.map((error) => `${place(error.instanceLocation)}: ${error.error}`);
  return [...new Set(sentences)].slice(0, 5);
}

/** `#/0/definition/schema` → `tools[0].definition.schema`. */
function place(pointer: string): string {
  const parts = pointer.replace(/^#\/?/, "").split("/").filter(Boolean);
  return parts.reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : `${path}.${part}`), "tools");
}
