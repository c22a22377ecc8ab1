import { type SqlBool, sql } from "kysely";
import type { ServiceContext } from "../context.ts";
import { createdWithin } from "../created-range.ts";
import type { QueryOf } from "../operation-input.ts";
import { paginate } from "../pagination.ts";
import { toProject } from "./project.ts";

/** The workspace's projects that the key may access. */
export function listProjects(ctx: ServiceContext, query: QueryOf<"listProjects">) {
  const { createdAfter, createdBefore, ...page } = query;
  let select = ctx.db
    .selectFrom("projects")
    .selectAll()
    .where("workspaceId", "=", ctx.principal.workspaceId)
    .where(createdWithin("projects", { createdAfter, createdBefore }));
  const allowed = ctx.principal.projectIds;
  if (allowed !== null) {
    select = allowed.length > 0 ? select.where("id", "in", allowed) : select.where(sql<SqlBool>`1 = 0`);
  }
  return paginate(ctx, {
    operation: "listProjects",
    filters: { createdAfter, createdBefore },
    page,
    table: "projects",
    select,
    toItem: toProject,
  });
}
