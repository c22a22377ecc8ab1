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
  /** Exact end-user id. */
  user?: string;
  /** Traces carrying this tag. */
  tag?: string;
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
    user: text(search.user),
    tag: text(search.tag),
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
  if (filters.tag !== undefined) body.filters = [{ column: "tags", operator: "contains", value: filters.tag }];
  return body;
}

/** Time-range presets: how far back from now. */
export const RANGES = [
  { label: "Last hour", ms: 3_600_000 },
  { label: "Last 24 hours", ms: 86_400_000 },
  { label: "Last 7 days", ms: 7 * 86_400_000 },
] as const;
