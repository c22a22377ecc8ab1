import type { ServiceContext } from "../context.ts";
import { createdWithin } from "../created-range.ts";
import type { PathOf, QueryOf } from "../operation-input.ts";
import { paginate } from "../pagination.ts";
import { requireProject } from "../projects/project.ts";
import { toWebhook } from "./webhook.ts";

/** The project's endpoints, without secrets. */
export async function listWebhooks(
  ctx: ServiceContext,
  { projectId }: PathOf<"listWebhooks">,
  query: QueryOf<"listWebhooks">,
) {
  const { createdAfter, createdBefore, ...page } = query;
  await requireProject(ctx, projectId);
  const now = ctx.now();
  const select = ctx.db
    .selectFrom("webhooks")
    .selectAll()
    .where("projectId", "=", projectId)
    .where(createdWithin("webhooks", { createdAfter, createdBefore }));
  return paginate(ctx, {
    operation: "listWebhooks",
    filters: { projectId, createdAfter, createdBefore },
    page,
    table: "webhooks",
    select,
    toItem: (row) => toWebhook(row, now),
  });
}
