/**
 * The trace list's filters as they live in the URL (shareable), and the search request they mean: the fields
 * and the `filters` grammar of `searchLogTraces`. Kept free of React so it is tested on its own.
 */
import type { Schemas } from "../api.ts";

export type LogStatus = Schemas["LogStatus"];
export const STATUSES: readonly LogStatus[] = ["success", "failure", "aborted", "cancelled", "pending", "unknown"];

export interface TraceFilters {
  /** Started at or after (Unix ms). */
  from?: number;
  /** Started at or before (Unix ms). */
  to?: number;
  status?: LogStatus;
  /** Substring of the trace name. */
  name?: string;
  /** Exact session id. */
  session?: string;
  /** Traces carrying this tag. */
  tag?: string;
  /** Exact user id. */
  user?: string;
  /** An attribute condition as typed: `key = value` or `key != value` (see `parseAttributeFilter`). */
  attribute?: string;
  /** A score condition as typed: `name >= 0.5`, `thumbs = true`, `label = good`, `name exists`. */
  score?: string;
}

type LogFilter = Schemas["LogFilter"];
type ScoreOperator = Schemas["LogScoreFilter"]["operator"];

/** A typed value: a JSON number, boolean or quoted string as such, anything else as the text itself. */
function typedValue(text: string): string | number | boolean {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === "number" || typeof value === "boolean" || typeof value === "string") return value;
  } catch {
    // Not JSON: plain text such as `pro`.
  }
  return text;
}

/** `key = value` / `key != value` as the search grammar's attribute filter, or null when it does not read so. */
export function parseAttributeFilter(text: string): LogFilter | null {
  const match = /^(.+?)\s*(!=|=)\s*(.+)$/.exec(text.trim());
  if (!match) return null;
  const [, key, symbol, value] = match as unknown as [string, string, string, string];
  return { column: "attributes", key, operator: symbol === "=" ? "equals" : "not-equals", value: typedValue(value) };
}

const SCORE_OPERATORS: Record<string, ScoreOperator> = {
  "=": "equals",
  "!=": "not-equals",
  ">": "gt",
  ">=": "gte",
  "<": "lt",
  "<=": "lte",
};

/** `name op value` (op one of = != > >= < <=) or `name exists` as the grammar's score filter, or null. */
export function parseScoreFilter(text: string): LogFilter | null {
  const trimmed = text.trim();
  const exists = /^(.+?)\s+exists$/.exec(trimmed);
  if (exists) return { column: "scores", name: exists[1] as string, operator: "exists", value: true };
  const match = /^(.+?)\s*(>=|<=|!=|=|>|<)\s*(.+)$/.exec(trimmed);
  if (!match) return null;
  const [, name, symbol, valueText] = match as unknown as [string, string, string, string];
  const operator = SCORE_OPERATORS[symbol] as ScoreOperator;
  const value = typedValue(valueText);
  // The grammar compares only numbers with gt/gte/lt/lte.
  if (operator !== "equals" && operator !== "not-equals" && typeof value !== "number") return null;
  return { column: "scores", name, operator, value };
}

const text = (value: unknown) => (typeof value === "string" && value.trim() !== "" ? value.trim() : undefined);
const time = (value: unknown) => {
  const number = typeof value === "string" ? Number(value) : value;
  return typeof number === "number" && Number.isSafeInteger(number) && number >= 0 ? number : undefined;
};

/** Reads the filters from a URL's search object, dropping what is malformed instead of failing. */
export function parseTraceFilters(search: Record<string, unknown>): TraceFilters {
  const status = STATUSES.find((candidate) => candidate === search.status);
  const filters: TraceFilters = {
    from: time(search.from),
    to: time(search.to),
    status,
    name: text(search.name),
    session: text(search.session),
    tag: text(search.tag),
    user: text(search.user),
    attribute: text(search.attribute),
    score: text(search.score),
  };
  return Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== undefined)) as TraceFilters;
}

/** The `searchLogTraces` body (without its page) the filters mean for one project. */
export function traceSearchBody(projectId: string, filters: TraceFilters): Schemas["SearchLogTracesRequest"] {
  const body: Schemas["SearchLogTracesRequest"] = { projectId };
  if (filters.from !== undefined) body.startedAfter = filters.from;
  if (filters.to !== undefined) body.startedBefore = filters.to;
  if (filters.status !== undefined) body.status = filters.status;
  if (filters.name !== undefined) body.name = filters.name;
  if (filters.session !== undefined) body.sessionId = filters.session;
  if (filters.user !== undefined) body.userId = filters.user;
  const conditions: LogFilter[] = [];
  if (filters.tag !== undefined) conditions.push({ column: "tags", operator: "contains", value: filters.tag });
  const attribute = filters.attribute === undefined ? null : parseAttributeFilter(filters.attribute);
  if (attribute) conditions.push(attribute);
  const score = filters.score === undefined ? null : parseScoreFilter(filters.score);
  if (score) conditions.push(score);
  if (conditions.length > 0) body.filters = conditions;
  return body;
}

/** Time-range presets: how far back from now. */
export const RANGES = [
  { label: "Last hour", ms: 3_600_000 },
  { label: "Last 24 hours", ms: 86_400_000 },
  { label: "Last 7 days", ms: 7 * 86_400_000 },
] as const;
