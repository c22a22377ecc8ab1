import { type SqlBool, sql } from "kysely";
import type { ServiceContext } from "../context.ts";
import { createdWithin } from "../created-range.ts";
import { type PageQuery, paginate } from "../pagination.ts";
import { toProject } from "./project.ts";

export interface ListProjectsInput extends PageQuery {
  createdAfter?: number;
  createdBefore?: number;
}

/** The workspace's projects that the key may access. */
export function listProjects(ctx: ServiceContext, input: ListProjectsInput) {
  let select = ctx.db
    .selectFrom("projects")
    .selectAll()
    .where("workspaceId", "=", ctx.principal.workspaceId)
    .where(createdWithin("projects", input));
  const allowed = ctx.principal.projectIds;
  if (allowed !== null) {
    select = allowed.length > 0 ? select.where("id", "in", allowed) : select.where(sql<SqlBool>`1 = 0`);
  }
  return paginate(ctx, {
    operation: "listProjects",
    query: { ...input },
    table: "projects",
    select,
    toItem: toProject,
  });
}
