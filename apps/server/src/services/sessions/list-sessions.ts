import type { ServiceContext } from "../context.ts";
import type { PathOf, QueryOf, Unread } from "../operation-input.ts";
import { listLogGroups } from "./log-groups.ts";

/** The project's sessions (distinct trace `sessionId`s) with their totals. */
export function listSessions(
  ctx: ServiceContext,
  { projectId }: PathOf<"listSessions">,
  query: QueryOf<"listSessions">,
) {
  const { limit, cursor, sort, ...unread } = query;
  unread satisfies Unread;
  return listLogGroups(ctx, {
    operation: "listSessions",
    groupBy: "sessionId",
    projectId,
    page: { limit, cursor, sort },
  });
}
