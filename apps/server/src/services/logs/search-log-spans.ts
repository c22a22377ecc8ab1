import { sql } from "kysely";
import type { ServiceContext } from "../context.ts";
import type { BodyOf } from "../operation-input.ts";
import { type Page, paginate } from "../pagination.ts";
import { requireProject } from "../projects/project.ts";
import { requirePromptsOfProject } from "../prompts/prompt.ts";
import { scoreSummaries } from "../scores/score-summaries.ts";
import {
  canonicalFilters,
  containsText,
  drivingOwners,
  filterCondition,
  OWNERS,
  scopeConditions,
  searchScope,
  spanOfUser,
} from "./log-filters.ts";
import { type LogSpan, toLogSpan } from "./search-items.ts";

/**
 * One page of the project's spans, of every content type, matching every condition, keyset-paginated on
 * (startedAt, id). `name` matches the span's name or its trace's (a primary-key lookup of the trace per
 * candidate span); `model` and `provider` only match Model and ModelStream spans, the only ones that have them.
 */
export async function searchLogSpans(ctx: ServiceContext, body: BodyOf<"searchLogSpans">) {
  const { limit, cursor, ...search } = body;
  const pages = await logSpanPages(ctx, search);
  return pages({ limit, cursor });
}

/** A search of spans without its page: what export (export-log-spans.ts) and search both read. */
export type LogSpanSearch = Omit<BodyOf<"searchLogSpans">, "limit" | "cursor">;

/**
 * The search's query, built once (checks of the project and prompt included), as a function of the page:
 * the one owner of the span search's filter rules, for a search page and for every page of an export. Its
 * cursors are the search's (bound to `searchLogSpans` and the same fields).
 */
export async function logSpanPages(
  ctx: ServiceContext,
  body: LogSpanSearch,
): Promise<(page: { limit?: number; cursor?: string }) => Promise<Page<LogSpan>>> {
  const {
    projectId,
    promptId,
    logTraceId,
    model,
    provider,
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
  if (promptId !== undefined) await requirePromptsOfProject(ctx, project.id, [promptId]);
  return async (page) => {
    const scope = searchScope("span", project.id, { startedAfter, startedBefore, ...order, ...page });
    const driver = drivingOwners(ctx.db, scope, filters);
    let select = ctx.db.selectFrom("logSpans").selectAll("logSpans");
    if (driver) {
      // Through $if, which keeps the builder's type: a join would widen it to the owners' columns. On startedAt
      // too (the owner's, which the side row carries), so that on PostgreSQL each owner is looked up in its own
      // day partition (run-time pruning) rather than in every day of the range (ADR 0027). As `>=` and `<=`
      // rather than `=`: the planner would multiply an equality's selectivity with the id's as if independent,
      // expect one row from the join and sort a hash join of the whole range instead of walking the owners.
      select = select.$if(true, (query) =>
        query.innerJoin(driver.owners.as(OWNERS), (join) =>
          join
            .onRef(`${OWNERS}.id`, "=", "logSpans.id")
            .onRef("logSpans.startedAt", ">=", `${OWNERS}.startedAt`)
            .onRef("logSpans.startedAt", "<=", `${OWNERS}.startedAt`),
        ),
      );
    }
    for (const condition of scopeConditions(scope)) select = select.where(condition);
    if (promptId !== undefined) select = select.where("logSpans.promptId", "=", promptId);
    if (logTraceId !== undefined) select = select.where("logSpans.traceId", "=", logTraceId);
    if (status !== undefined) select = select.where("logSpans.status", "=", status);
    if (referenceId !== undefined) select = select.where("logSpans.referenceId", "=", referenceId);
    if (sessionId !== undefined) select = select.where("logSpans.sessionId", "=", sessionId);
    if (userId !== undefined) select = select.where(spanOfUser(project.id, userId));
    if (model !== undefined) select = select.where(containsText(sql.ref("logSpans.model"), model));
    if (provider !== undefined) select = select.where(containsText(sql.ref("logSpans.provider"), provider));
    if (name !== undefined) {
      const traceName = sql.ref("logTraces.name");
      select = select.where(
        sql<boolean>`(${containsText(sql.ref("logSpans.name"), name)} or exists (select 1 from ${sql.table(
          "logTraces",
        )} where ${sql.ref("logTraces.id")} = ${sql.ref("logSpans.traceId")} and ${containsText(traceName, name)}))`,
      );
    }
    for (const [index, filter] of filters.entries()) {
      if (index !== driver?.index) select = select.where(filterCondition(scope, filter, index));
    }
    const rows = await paginate(ctx, {
      operation: "searchLogSpans",
      filters: {
        projectId: project.id,
        promptId,
        logTraceId,
        model,
        provider,
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
      table: driver ? OWNERS : "logSpans",
      keyset: "startedAt",
      alsoBound: driver ? [`${OWNERS}.startedAt`, "logSpans.startedAt"] : ["logSpans.startedAt"],
      select,
      toItem: (row) => row,
    });
    // The page's score summaries in one more query, for search and export alike.
    const summaries = await scoreSummaries(
      ctx.db,
      "span",
      rows.items.map((row) => row.id),
    );
    return { ...rows, items: rows.items.map((row) => toLogSpan(row, summaries.get(row.id) ?? [])) };
  };
}
