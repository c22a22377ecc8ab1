import { sql } from "kysely";
import type { ServiceContext } from "../context.ts";
import type { BodyOf } from "../operation-input.ts";
import { type Page, paginate } from "../pagination.ts";
import { requireProject } from "../projects/project.ts";
import { scoreSummaries } from "../scores/score-summaries.ts";
import {
  canonicalFilters,
  containsText,
  drivingOwners,
  filterCondition,
  OWNERS,
  scopeConditions,
  searchScope,
} from "./log-filters.ts";
import { type LogTrace, toLogTrace } from "./search-items.ts";

/**
 * One page of the project's traces matching every condition, keyset-paginated on (startedAt, id). The project
 * and time range lead every condition so that a (projectId, …, startedAt, id) index serves the query.
 */
export async function searchLogTraces(ctx: ServiceContext, body: BodyOf<"searchLogTraces">) {
  const { limit, cursor, ...search } = body;
  const pages = await logTracePages(ctx, search);
  return pages({ limit, cursor });
}

/** A search of traces without its page: what export (export-log-traces.ts) and search both read. */
export type LogTraceSearch = Omit<BodyOf<"searchLogTraces">, "limit" | "cursor">;

/**
 * The search's query as a function of the page (the project checked once): the one owner of the trace search's
 * filter rules, for a search page and for every page of an export. Its cursors are the search's.
 */
export async function logTracePages(
  ctx: ServiceContext,
  body: LogTraceSearch,
): Promise<(page: { limit?: number; cursor?: string }) => Promise<Page<LogTrace>>> {
  const {
    projectId,
    logTraceId,
    startedAfter,
    startedBefore,
    status,
    name,
    referenceId,
    sessionId,
    userId,
    filters = [],
    ...order
  } = body;
  const project = await requireProject(ctx, projectId);
  return async (page) => {
    const scope = searchScope("trace", project.id, { startedAfter, startedBefore, ...order, ...page });
    const driver = drivingOwners(ctx.db, scope, filters);
    let select = ctx.db.selectFrom("logTraces").selectAll("logTraces");
    if (driver) {
      // Through $if, which keeps the builder's type: a join would widen it to the owners' columns.
      select = select.$if(true, (query) => query.innerJoin(driver.owners.as(OWNERS), `${OWNERS}.id`, "logTraces.id"));
    }
    for (const condition of scopeConditions(scope)) select = select.where(condition);
    if (logTraceId !== undefined) select = select.where("logTraces.id", "=", logTraceId);
    if (status !== undefined) select = select.where("logTraces.status", "=", status);
    if (referenceId !== undefined) select = select.where("logTraces.referenceId", "=", referenceId);
    if (sessionId !== undefined) select = select.where("logTraces.sessionId", "=", sessionId);
    if (userId !== undefined) select = select.where("logTraces.userId", "=", userId);
    if (name !== undefined) select = select.where(containsText(sql.ref("logTraces.name"), name));
    for (const [index, filter] of filters.entries()) {
      if (index !== driver?.index) select = select.where(filterCondition(scope, filter, index));
    }
    const rows = await paginate(ctx, {
      operation: "searchLogTraces",
      filters: {
        projectId: project.id,
        logTraceId,
        startedAfter,
        startedBefore,
        status,
        name,
        referenceId,
        sessionId,
        userId,
        filters: canonicalFilters(body.filters),
      },
      page: { ...order, ...page, sort: order.sort ?? "startedAt:desc" },
      table: driver ? OWNERS : "logTraces",
      alsoBound: driver ? [`${OWNERS}.startedAt`] : [],
      keyset: "startedAt",
      select,
      toItem: (row) => row,
    });
    // The page's score summaries in one more query, for search and export alike.
    const summaries = await scoreSummaries(
      ctx.db,
      "trace",
      rows.items.map((row) => row.id),
    );
    return { ...rows, items: rows.items.map((row) => toLogTrace(row, summaries.get(row.id) ?? [])) };
  };
}
