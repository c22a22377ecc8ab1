/**
 * Sessions and end users of a project: the distinct `sessionId` / `userId` values of its traces, each with the
 * totals of its traces, computed by one grouped read when a page is asked for (ADR 0018). The group's index
 * (projectId, sessionId|userId, startedAt, id; traces without a value are not in it) hands the traces over
 * already grouped, so the read needs no sort to group, only to order the groups.
 *
 * Keyset-paginated on (the sort's value, id): the position of a page's last group is in the cursor, and the
 * next page keeps the groups after it (a HAVING condition, since the sort's value is an aggregate).
 */

import type { schemas } from "@pharos/contract";
import { type SqlBool, sql } from "kysely";
import type { ServiceContext } from "../context.ts";
import { decodeCursor, encodeCursor, type Page, queryHash } from "../pagination.ts";
import { requireProject } from "../projects/project.ts";

export type LogGroupTotals = schemas.LogGroupTotals;
export type LogGroupSort = "lastSeenAt:desc" | "lastSeenAt:asc" | "cost:desc" | "cost:asc";

/** The trace column a group is keyed by. */
type GroupColumn = "sessionId" | "userId";

export async function listLogGroups(
  ctx: ServiceContext,
  options: {
    operation: "listSessions" | "listUsers";
    groupBy: GroupColumn;
    projectId: string;
    page: { limit?: number; cursor?: string; sort?: LogGroupSort };
  },
): Promise<Page<LogGroupTotals>> {
  const { operation, groupBy, page } = options;
  const project = await requireProject(ctx, options.projectId);
  const sort = page.sort ?? "lastSeenAt:desc";
  const limit = page.limit ?? 50;
  const [by, direction] = sort.split(":") as ["lastSeenAt" | "cost", "asc" | "desc"];
  const hash = queryHash(operation, ctx.principal.workspaceId, { projectId: project.id, sort });

  const key = sql.ref(`logTraces.${groupBy}`);
  const lastSeenAt = sql<number>`max(${sql.ref("logTraces.startedAt")})`;
  const totalCost = sql<number>`sum(${sql.ref("logTraces.totalCost")})`;
  const sortValue = by === "cost" ? totalCost : lastSeenAt;
  const order = sql.raw(direction);

  let select = ctx.db
    .selectFrom("logTraces")
    .select([
      sql<string>`${key}`.as("id"),
      sql<number>`min(${sql.ref("logTraces.startedAt")})`.as("firstSeenAt"),
      lastSeenAt.as("lastSeenAt"),
      sql<number>`count(*)`.as("traceCount"),
      sql<number>`sum(case when ${sql.ref("logTraces.status")} = 'failure' then 1 else 0 end)`.as("errorCount"),
      totalCost.as("totalCost"),
      sql<number>`sum(${sql.ref("logTraces.totalInputTokens")})`.as("totalInputTokens"),
      sql<number>`sum(${sql.ref("logTraces.totalOutputTokens")})`.as("totalOutputTokens"),
    ])
    .where("logTraces.projectId", "=", project.id)
    .where(key, "is not", null)
    .groupBy(key);
  if (page.cursor !== undefined) {
    const [value, id] = decodeCursor(ctx.cursorSecret, hash, page.cursor);
    const op = sql.raw(direction === "asc" ? ">" : "<");
    // Spelled out rather than as a row value: the sort's value is an aggregate, compared in HAVING.
    select = select.having(
      sql<SqlBool>`(${sortValue} ${op} ${value} or (${sortValue} = ${value} and ${key} ${op} ${id}))`,
    );
  }
  const rows = await select
    .orderBy(sql`${sortValue} ${order}`)
    .orderBy(sql`${key} ${order}`)
    .limit(limit + 1)
    .execute();
  const hasMore = rows.length > limit;
  const items = rows.slice(0, limit).map(toTotals);
  const last = items.at(-1);
  return {
    items,
    pagination: {
      limit,
      returned: items.length,
      hasMore,
      nextCursor:
        hasMore && last
          ? encodeCursor(ctx.cursorSecret, hash, [by === "cost" ? last.totalCost : last.lastSeenAt, last.id])
          : null,
    },
  };
}

/** PostgreSQL answers bigint sums and counts as text: every total is a number in the API. */
function toTotals(row: Record<keyof LogGroupTotals, string | number>): LogGroupTotals {
  return {
    id: String(row.id),
    firstSeenAt: Number(row.firstSeenAt),
    lastSeenAt: Number(row.lastSeenAt),
    traceCount: Number(row.traceCount),
    errorCount: Number(row.errorCount),
    totalCost: Number(row.totalCost),
    totalInputTokens: Number(row.totalInputTokens),
    totalOutputTokens: Number(row.totalOutputTokens),
  };
}
