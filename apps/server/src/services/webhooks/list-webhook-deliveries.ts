import type { ServiceContext } from "../context.ts";
import { createdWithin } from "../created-range.ts";
import type { PathOf, QueryOf } from "../operation-input.ts";
import { paginate } from "../pagination.ts";
import { toDelivery } from "./delivery.ts";
import { requireWebhook } from "./webhook.ts";

/** The endpoint's delivery log: one delivery per event, each with its attempts. */
export async function listWebhookDeliveries(
  ctx: ServiceContext,
  { projectId, webhookId }: PathOf<"listWebhookDeliveries">,
  query: QueryOf<"listWebhookDeliveries">,
) {
  const { createdAfter, createdBefore, ...page } = query;
  await requireWebhook(ctx, projectId, webhookId);
  const select = ctx.db
    .selectFrom("webhookDeliveries")
    .selectAll()
    .where("webhookId", "=", webhookId)
    .where(createdWithin("webhookDeliveries", { createdAfter, createdBefore }));
  return paginate(ctx, {
    operation: "listWebhookDeliveries",
    filters: { webhookId, createdAfter, createdBefore },
    page,
    table: "webhookDeliveries",
    select,
    toItem: toDelivery,
  });
}
