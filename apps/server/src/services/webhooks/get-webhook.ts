import type { ServiceContext } from "../context.ts";
import type { PathOf } from "../operation-input.ts";
import { requireWebhook, toWebhook, type Webhook } from "./webhook.ts";

export async function getWebhook(
  ctx: ServiceContext,
  { projectId, webhookId }: PathOf<"getWebhook">,
): Promise<Webhook> {
  return toWebhook(await requireWebhook(ctx, projectId, webhookId), ctx.now());
}
