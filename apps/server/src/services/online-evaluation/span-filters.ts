/**
 * The log search filter grammar (LogFilter, log-filters.ts) judged on one span as it is written, in memory:
 * continuous evaluation decides which evaluators grade a span before the span's batch commits, so the decision
 * costs the write no statement. Same semantics as the search: exact `equals`/`in` of the same JSON type,
 * case-insensitive `contains`, and a column without a value matches only the negative operators and
 * `exists: false`.
 */
import type { schemas } from "@pharos/contract";
import { type SpanInput, type SpanRow, uniqueTags } from "../logs/log-rows.ts";

type AttributeValue = string | number | boolean;

/** What a filter can look at: the span's stored row, its tags and attributes as written, its trace's user. */
export interface FilterableSpan {
  row: SpanRow;
  input: SpanInput;
  traceUserId: string | null;
}

export function matchesAll(span: FilterableSpan, filters: readonly schemas.LogFilter[]): boolean {
  return filters.every((filter) => matches(span, filter));
}

function matches({ row, input, traceUserId }: FilterableSpan, filter: schemas.LogFilter): boolean {
  switch (filter.column) {
    case "userId":
      // A span's user is its trace's (as in span search).
      return textMatches(traceUserId, filter);
    case "name":
    case "sessionId":
    case "referenceId":
    case "contentType":
      return textMatches(row[filter.column], filter);
    case "status":
      return statusMatches(row.status, filter);
    case "latency":
    case "cost":
    case "startedAt":
    case "endedAt":
    case "totalTokens":
      return compare(row[filter.column], filter.operator, filter.value);
    case "inputTokens":
      return compare(row.promptTokens, filter.operator, filter.value);
    case "outputTokens":
      return compare(row.completionTokens, filter.operator, filter.value);
    case "tags":
      return tagsMatch(uniqueTags(input.tags), filter);
    case "attributes":
      return attributeMatches(input.attributes?.[filter.key], filter);
    case "scores":
      // A span is judged as it is written, before it can have a score.
      return filter.operator === "not-equals" || (filter.operator === "exists" && filter.value === false);
  }
}

const containsText = (value: string, text: string) => value.toLowerCase().includes(text.toLowerCase());

function textMatches(value: string | null, filter: schemas.LogTextFilter): boolean {
  switch (filter.operator) {
    case "equals":
      return value === filter.value;
    case "not-equals":
      return value !== filter.value;
    case "contains":
      return value !== null && containsText(value, filter.value);
    case "not-contains":
      return value === null || !containsText(value, filter.value);
    case "in":
      return value !== null && filter.value.includes(value);
    case "not-in":
      return value === null || !filter.value.includes(value);
    case "exists":
      return (value !== null) === filter.value;
  }
}

function statusMatches(value: string, filter: schemas.LogStatusFilter): boolean {
  switch (filter.operator) {
    case "equals":
      return value === filter.value;
    case "not-equals":
      return value !== filter.value;
    case "in":
      return (filter.value as readonly string[]).includes(value);
    case "not-in":
      return !(filter.value as readonly string[]).includes(value);
  }
}

type Comparison = "equals" | "not-equals" | "gt" | "gte" | "lt" | "lte";

/** `value <op> operand`; a missing value matches `not-equals` only. */
function compare(value: number | null, operator: Comparison, operand: number): boolean {
  if (value === null) return operator === "not-equals";
  switch (operator) {
    case "equals":
      return value === operand;
    case "not-equals":
      return value !== operand;
    case "gt":
      return value > operand;
    case "gte":
      return value >= operand;
    case "lt":
      return value < operand;
    case "lte":
      return value <= operand;
  }
}

function tagsMatch(tags: readonly string[], filter: schemas.LogTagsFilter): boolean {
  switch (filter.operator) {
    case "contains":
      return tags.includes(filter.value);
    case "not-contains":
      return !tags.includes(filter.value);
    case "in":
      return filter.value.some((tag) => tags.includes(tag));
    case "not-in":
      return !filter.value.some((tag) => tags.includes(tag));
  }
}

function attributeMatches(value: AttributeValue | undefined, filter: schemas.LogAttributeFilter): boolean {
  const present = value !== undefined;
  switch (filter.operator) {
    case "equals":
      return present && value === filter.value;
    case "not-equals":
      return !present || value !== filter.value;
    case "contains":
      return typeof value === "string" && containsText(value, filter.value);
    case "not-contains":
      return typeof value !== "string" || !containsText(value, filter.value);
    case "gt":
    case "gte":
    case "lt":
    case "lte":
      return typeof value === "number" && compare(value, filter.operator, filter.value);
    case "in":
      return present && (filter.value as readonly AttributeValue[]).includes(value);
    case "not-in":
      return !present || !(filter.value as readonly AttributeValue[]).includes(value);
    case "exists":
      return present === filter.value;
  }
}
