import type { ServiceContext } from "../context.ts";
import type { BodyOf, Unread } from "../operation-input.ts";
import {
  assertDisplayNameFree,
  checkBaseUrl,
  checkCredentials,
  displayNameKey,
  duplicateDisplayName,
  type Provider,
  sealCredentials,
  toProvider,
} from "./provider.ts";

/** A new provider record of the workspace, its credentials sealed. */
export async function createProvider(ctx: ServiceContext, body: BodyOf<"createProvider">): Promise<Provider> {
  const { provider, displayName, baseUrl: requestedBaseUrl, credentials, ...unread } = body;
  unread satisfies Unread;
  const baseUrl = checkBaseUrl(provider, requestedBaseUrl ?? null);
  checkCredentials(credentials);
  await assertDisplayNameFree(ctx, displayName);
  const now = ctx.now();
  const row = {
    id: ctx.newId("provider"),
    workspaceId: ctx.principal.workspaceId,
    provider,
    displayName,
    displayNameKey: displayNameKey(displayName),
    baseUrl,
    credentials: sealCredentials(ctx, credentials ?? null),
    createdAt: now,
    updatedAt: now,
  };
  try {
    await ctx.db.insertInto("providers").values(row).execute();
  } catch (error) {
    if (ctx.store.isUniqueViolation(error)) throw duplicateDisplayName(displayName);
    throw error;
  }
  return toProvider(row);
}
