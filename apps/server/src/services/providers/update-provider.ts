import { inTransaction, type ServiceContext } from "../context.ts";
import type { BodyOf, PathOf, Unread } from "../operation-input.ts";
import {
  assertDisplayNameFree,
  checkBaseUrl,
  checkCredentials,
  displayNameKey,
  duplicateDisplayName,
  type Provider,
  requireProvider,
  sealCredentials,
  toProvider,
} from "./provider.ts";

/**
 * PATCH: the fields given replace the stored ones (`credentials` as a whole, `null` removing them; `baseUrl:
 * null` restoring the vendor default); the kind never changes.
 */
export function updateProvider(
  ctx: ServiceContext,
  { providerId }: PathOf<"updateProvider">,
  body: BodyOf<"updateProvider">,
): Promise<Provider> {
  const { displayName, baseUrl, credentials, ...unread } = body;
  unread satisfies Unread;
  checkCredentials(credentials);
  return inTransaction(ctx, async (tx) => {
    const provider = await requireProvider(tx, providerId);
    const newBaseUrl = baseUrl === undefined ? undefined : checkBaseUrl(provider.provider, baseUrl);
    if (displayName !== undefined) await assertDisplayNameFree(tx, displayName, provider.id);
    const changes = {
      ...(displayName !== undefined && { displayName, displayNameKey: displayNameKey(displayName) }),
      ...(newBaseUrl !== undefined && { baseUrl: newBaseUrl }),
      ...(credentials !== undefined && { credentials: sealCredentials(tx, credentials) }),
      updatedAt: tx.now(),
    };
    try {
      await tx.db.updateTable("providers").set(changes).where("id", "=", provider.id).execute();
    } catch (error) {
      if (tx.store.isUniqueViolation(error) && displayName !== undefined) throw duplicateDisplayName(displayName);
      throw error;
    }
    return toProvider({ ...provider, ...changes });
  });
}
