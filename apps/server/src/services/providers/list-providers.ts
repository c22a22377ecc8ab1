import type { ServiceContext } from "../context.ts";
import { createdWithin } from "../created-range.ts";
import type { QueryOf } from "../operation-input.ts";
import { paginate } from "../pagination.ts";
import { toProvider } from "./provider.ts";

/** The workspace's provider records, without models or credentials. */
export function listProviders(ctx: ServiceContext, query: QueryOf<"listProviders">) {
  const { createdAfter, createdBefore, ...page } = query;
  const select = ctx.db
    .selectFrom("providers")
    .selectAll()
    .where("workspaceId", "=", ctx.principal.workspaceId)
    .where(createdWithin("providers", { createdAfter, createdBefore }));
  return paginate(ctx, {
    operation: "listProviders",
    filters: { createdAfter, createdBefore },
    page,
    table: "providers",
    select,
    toItem: toProvider,
  });
}
