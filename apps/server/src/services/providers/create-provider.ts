import type { schemas } from "@pharos/contract";
import type { ServiceContext } from "../context.ts";
import {
  assertDisplayNameFree,
  checkBaseUrl,
  displayNameKey,
  duplicateDisplayName,
  type Provider,
  sealCredentials,
  toProvider,
} from "./provider.ts";

/** A new provider record of the workspace, its credentials sealed. */
export async function createProvider(ctx: ServiceContext, input: schemas.CreateProviderRequest): Promise<Provider> {
  const baseUrl = checkBaseUrl(input.provider, input.baseUrl ?? null);
  await assertDisplayNameFree(ctx, input.displayName);
  const now = ctx.now();
  const row = {
    id: ctx.newId("provider"),
    workspaceId: ctx.principal.workspaceId,
    provider: input.provider,
    displayName: input.displayName,
    displayNameKey: displayNameKey(input.displayName),
    baseUrl,
    credentials: sealCredentials(ctx, input.credentials ?? null),
    createdAt: now,
    updatedAt: now,
  };
  try {
    await ctx.db.insertInto("providers").values(row).execute();
  } catch (error) {
    if (ctx.store.isUniqueViolation(error)) throw duplicateDisplayName(input.displayName);
    throw error;
  }
  return toProvider(row);
}
