import type { ServiceContext } from "../context.ts";
import type { PathOf, QueryOf, Unread } from "../operation-input.ts";
import { listLogGroups } from "./log-groups.ts";

/** The project's end users (distinct trace `userId`s) with their totals. */
export function listUsers(ctx: ServiceContext, { projectId }: PathOf<"listUsers">, query: QueryOf<"listUsers">) {
  const { limit, cursor, sort, ...unread } = query;
  unread satisfies Unread;
  return listLogGroups(ctx, { operation: "listUsers", groupBy: "userId", projectId, page: { limit, cursor, sort } });
}
