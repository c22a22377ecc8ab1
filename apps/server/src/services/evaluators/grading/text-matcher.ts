/** The text matcher: the output compared with one string, a list of strings or a regular expression. */
import type { schemas } from "@pharos/contract";
import type { RowOutcome } from "./grade.ts";
import { fillPlaceholders, fillRegexPlaceholders } from "./placeholders.ts";
import { NO_OUTPUT, passOrFail, quote, unknown, type Verdict } from "./verdict.ts";

type TextMatcherConfig = schemas.TextMatcherEvaluatorConfig;

/** How many strings a reason lists before it only counts the rest. */
const LISTED = 10;

export function gradeTextMatcher(config: TextMatcherConfig, outcome: RowOutcome): Verdict {
  if (outcome.output === null) return unknown(NO_OUTPUT);
  const caseSensitive = config.caseSensitive ?? true;
  if (config.operator === "regex") {
    if (typeof config.value !== "string") return unknown("operator regex takes one string");
    return matchRegex(fillRegexPlaceholders(config.value, outcome.variables), caseSensitive, outcome.output);
  }

  // Lower-casing without a locale, so that the outcome does not depend on the server's language settings.
  const comparable = (text: string) => (caseSensitive ? text : text.toLowerCase());
  const output = comparable(outcome.output);
  const ignoringCase = caseSensitive ? "" : " (ignoring case)";
  const needles = (typeof config.value === "string" ? [config.value] : config.value).map((value) =>
    fillPlaceholders(value, outcome.variables),
  );
  const found = needles.filter((needle) => output.includes(comparable(needle)));
  const missing = needles.filter((needle) => !output.includes(comparable(needle)));

  switch (config.operator) {
    case "contains-any":
      return passOrFail(
        found.length > 0,
        found.length > 0
          ? `contains: ${list(found)}${ignoringCase}`
          : `contains none of: ${list(needles)}${ignoringCase}`,
      );
    case "contains-all":
      return passOrFail(
        missing.length === 0,
        missing.length === 0
          ? `contains all of: ${list(needles)}${ignoringCase}`
          : `does not contain: ${list(missing)}${ignoringCase}`,
      );
    case "not-contains-any":
      return passOrFail(
        found.length === 0,
        found.length === 0
          ? `contains none of: ${list(needles)}${ignoringCase}`
          : `contains: ${list(found)}${ignoringCase}`,
      );
    case "equals":
    case "starts-with":
    case "ends-with": {
      if (typeof config.value !== "string") return unknown(`operator ${config.operator} takes one string`);
      const needle = needles[0] as string;
      const expected = comparable(needle);
      const passed =
        config.operator === "equals"
          ? output === expected
          : config.operator === "starts-with"
            ? output.startsWith(expected)
            : output.endsWith(expected);
      const [verb, negated] = WORDING[config.operator];
      return passOrFail(passed, `output ${passed ? verb : negated} ${quote(needle)}${ignoringCase}`);
    }
  }
}

const WORDING = {
  equals: ["equals", "does not equal"],
  "starts-with": ["starts with", "does not start with"],
  "ends-with": ["ends with", "does not end with"],
} as const;

function matchRegex(pattern: string, caseSensitive: boolean, output: string): Verdict {
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, caseSensitive ? "" : "i");
  } catch (error) {
    // Only possible once placeholders are filled: the saved pattern was checked.
    return unknown(`the regular expression is invalid once filled in: ${(error as Error).message}`);
  }
  const shown = `/${regex.source.length > 200 ? `${regex.source.slice(0, 200)}…` : regex.source}/${regex.flags}`;
  const match = regex.exec(output);
  return passOrFail(
    match !== null,
    match !== null ? `output matches ${shown} at ${quote(match[0])}` : `output does not match ${shown}`,
  );
}

function list(values: string[]): string {
  const listed = values.slice(0, LISTED).map((value) => quote(value));
  const more = values.length - LISTED;
  return more > 0 ? `${listed.join(", ")} and ${more} more` : listed.join(", ");
}
