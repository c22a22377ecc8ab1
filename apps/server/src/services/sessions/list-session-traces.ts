import type { ServiceContext } from "../context.ts";
import { logTracePages } from "../logs/search-log-traces.ts";
import type { PathOf, QueryOf, Unread } from "../operation-input.ts";

/**
 * One session's traces oldest first, so a conversation reads turn by turn: the trace search on the session
 * (its rules, index and keyset), in ascending order. Its cursors are that search's.
 */
export async function listSessionTraces(
  ctx: ServiceContext,
  { projectId, sessionId }: PathOf<"listSessionTraces">,
  query: QueryOf<"listSessionTraces">,
) {
  const { limit, cursor, ...unread } = query;
  unread satisfies Unread;
  const pages = await logTracePages(ctx, { projectId, sessionId, sort: "startedAt:asc" });
  return pages({ limit, cursor });
}
