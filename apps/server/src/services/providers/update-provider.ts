import type { schemas } from "@pharos/contract";
import { inTransaction, type ServiceContext } from "../context.ts";
import {
  assertDisplayNameFree,
  checkBaseUrl,
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
  providerId: string,
  input: schemas.UpdateProviderRequest,
): Promise<Provider> {
  return inTransaction(ctx, async (tx) => {
    const provider = await requireProvider(tx, providerId);
    const { displayName, baseUrl, credentials } = input;
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
