import type { schemas } from "@pharos/contract";
import { sql } from "kysely";
import { notFound } from "../../errors.ts";
import { requireProject } from "../access.ts";
import type { ServiceContext } from "../context.ts";
import { paginate } from "../pagination.ts";
import {
  canonicalFilters,
  containsText,
  drivingOwners,
  filterCondition,
  OWNERS,
  scopeConditions,
  searchScope,
} from "./log-filters.ts";
import { toLogSpan } from "./search-items.ts";

export type SearchLogSpansInput = schemas.SearchLogSpansRequest;

/** The prompt, which must be one of the project's (otherwise 404). */
async function requirePromptOfProject(ctx: ServiceContext, projectId: string, promptId: string): Promise<void> {
  const prompt = await ctx.db
    .selectFrom("prompts")
    .select("id")
    .where("id", "=", promptId)
    .where("projectId", "=", projectId)
    .where("workspaceId", "=", ctx.principal.workspaceId)
    .executeTakeFirst();
  if (!prompt) throw notFound("Prompt");
}

/**
 * One page of the project's spans, of every content type, matching every condition, keyset-paginated on
 * (startedAt, id). `name` matches the span's name or its trace's (a primary-key lookup of the trace per
 * candidate span); `model` and `provider` only match Model and ModelStream spans, the only ones that have them.
 */
export async function searchLogSpans(ctx: ServiceContext, input: SearchLogSpansInput) {
  const project = await requireProject(ctx, input.projectId);
  if (input.promptId !== undefined) await requirePromptOfProject(ctx, project.id, input.promptId);
  const scope = searchScope("span", project.id, input);
  const filters = input.filters ?? [];
  const driver = drivingOwners(ctx.db, scope, filters);
  let select = ctx.db.selectFrom("logSpans").selectAll("logSpans");
  if (driver) {
    // Through $if, which keeps the builder's type: a join would widen it to the owners' columns.
    select = select.$if(true, (query) => query.innerJoin(driver.owners.as(OWNERS), `${OWNERS}.id`, "logSpans.id"));
  }
  for (const condition of scopeConditions(scope)) select = select.where(condition);
  if (input.promptId !== undefined) select = select.where("logSpans.promptId", "=", input.promptId);
  if (input.status !== undefined) select = select.where("logSpans.status", "=", input.status);
  if (input.referenceId !== undefined) select = select.where("logSpans.referenceId", "=", input.referenceId);
  if (input.sessionId !== undefined) select = select.where("logSpans.sessionId", "=", input.sessionId);
  if (input.model !== undefined) select = select.where(containsText(sql.ref("logSpans.model"), input.model));
  if (input.provider !== undefined) select = select.where(containsText(sql.ref("logSpans.provider"), input.provider));
  if (input.name !== undefined) {
    const name = input.name;
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
  return paginate(ctx, {
    operation: "searchLogSpans",
    query: {
      projectId: project.id,
      promptId: input.promptId,
      model: input.model,
      provider: input.provider,
      startedAfter: input.startedAfter,
      startedBefore: input.startedBefore,
      status: input.status,
      name: input.name,
      referenceId: input.referenceId,
      sessionId: input.sessionId,
      filters: canonicalFilters(input.filters),
      sort: input.sort ?? "startedAt:desc",
      limit: input.limit,
      cursor: input.cursor,
    },
    table: driver ? OWNERS : "logSpans",
    keyset: "startedAt",
    select,
    toItem: toLogSpan,
  });
}
