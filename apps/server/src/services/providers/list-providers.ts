import type { ServiceContext } from "../context.ts";
import { createdWithin } from "../created-range.ts";
import { type PageQuery, paginate } from "../pagination.ts";
import { toProvider } from "./provider.ts";

export interface ListProvidersInput extends PageQuery {
  createdAfter?: number;
  createdBefore?: number;
}

/** The workspace's provider records, without models or credentials. */
export function listProviders(ctx: ServiceContext, input: ListProvidersInput) {
  const select = ctx.db
    .selectFrom("providers")
    .selectAll()
    .where("workspaceId", "=", ctx.principal.workspaceId)
    .where(createdWithin("providers", input));
  return paginate(ctx, {
    operation: "listProviders",
    query: { ...input },
    table: "providers",
    select,
    toItem: toProvider,
  });
}
