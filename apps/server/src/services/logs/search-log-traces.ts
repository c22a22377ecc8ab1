import type { schemas } from "@pharos/contract";
import { sql } from "kysely";
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
import { toLogTrace } from "./search-items.ts";

export type SearchLogTracesInput = schemas.SearchLogTracesRequest;

/**
 * One page of the project's traces matching every condition, keyset-paginated on (startedAt, id). The project
 * and time range lead every condition so that a (projectId, …, startedAt, id) index serves the query.
 */
export async function searchLogTraces(ctx: ServiceContext, input: SearchLogTracesInput) {
  const project = await requireProject(ctx, input.projectId);
  const scope = searchScope("trace", project.id, input);
  const filters = input.filters ?? [];
  const driver = drivingOwners(ctx.db, scope, filters);
  let select = ctx.db.selectFrom("logTraces").selectAll("logTraces");
  if (driver) {
    // Through $if, which keeps the builder's type: a join would widen it to the owners' columns.
    select = select.$if(true, (query) => query.innerJoin(driver.owners.as(OWNERS), `${OWNERS}.id`, "logTraces.id"));
  }
  for (const condition of scopeConditions(scope)) select = select.where(condition);
  if (input.status !== undefined) select = select.where("logTraces.status", "=", input.status);
  if (input.referenceId !== undefined) select = select.where("logTraces.referenceId", "=", input.referenceId);
  if (input.sessionId !== undefined) select = select.where("logTraces.sessionId", "=", input.sessionId);
  if (input.name !== undefined) select = select.where(containsText(sql.ref("logTraces.name"), input.name));
  for (const [index, filter] of filters.entries()) {
    if (index !== driver?.index) select = select.where(filterCondition(scope, filter, index));
  }
  return paginate(ctx, {
    operation: "searchLogTraces",
    query: {
      projectId: project.id,
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
    table: driver ? OWNERS : "logTraces",
    keyset: "startedAt",
    select,
    toItem: toLogTrace,
  });
}
