import type { ServiceContext } from "../context.ts";
import type { BodyOf, PathOf, Unread } from "../operation-input.ts";
import { requireProject } from "../projects/project.ts";
import {
  checkHeaders,
  checkUrl,
  eventsToStore,
  headersToStore,
  newSecret,
  toWebhook,
  type WebhookWithSecret,
} from "./webhook.ts";

/** A new endpoint of the project with a generated secret, returned this once (sealed at rest). */
export async function createWebhook(
  ctx: ServiceContext,
  { projectId }: PathOf<"createWebhook">,
  body: BodyOf<"createWebhook">,
): Promise<WebhookWithSecret> {
  const { name, url, events, headers, ...unread } = body;
  unread satisfies Unread;
  await requireProject(ctx, projectId);
  checkUrl(ctx, url);
  checkHeaders(headers);
  const now = ctx.now();
  const secret = newSecret();
  const row = {
    id: ctx.newId("webhook"),
    workspaceId: ctx.principal.workspaceId,
    projectId,
    name,
    url,
    events: eventsToStore(events),
    headers: headersToStore(headers),
    secret: ctx.secrets.seal(secret),
    previousSecret: null,
    previousSecretExpiresAt: null,
    createdAt: now,
    updatedAt: now,
  };
  await ctx.db.insertInto("webhooks").values(row).execute();
  return { ...toWebhook(row, now), secret };
}
