import { conflict, notFound } from "../../errors.ts";
import { revokeApiKey } from "../admin/workspaces.ts";
import { inTransaction, type ServiceContext } from "../context.ts";
import type { PathOf } from "../operation-input.ts";

/**
 * Revokes a key of the caller's workspace (the CLI's verb); a revoked key stays revoked. A key may not revoke
 * itself when it is the workspace's last active admin key (full, every project, not expired): the workspace
 * would be left without a key that can manage keys, recoverable only by the operator's CLI.
 */
export async function deleteApiKey(ctx: ServiceContext, { apiKeyId }: PathOf<"deleteApiKey">): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const workspaceId = tx.principal.workspaceId;
    const now = tx.now();
    // The workspace's active admin keys, locked: two last admins revoking themselves at once cannot both pass.
    const admins = await tx.store.sql.locks
      .forUpdate(
        tx.db
          .selectFrom("apiKeys")
          .select("id")
          .where("workspaceId", "=", workspaceId)
          .where("role", "=", "full")
          .where("projectIds", "is", null)
          .where("revokedAt", "is", null)
          .where((eb) => eb.or([eb("expiresAt", "is", null), eb("expiresAt", ">", now)])),
      )
      .execute();
    const key = await tx.db
      .selectFrom("apiKeys")
      .select(["id", "revokedAt"])
      .where("workspaceId", "=", workspaceId)
      .where("id", "=", apiKeyId)
      .executeTakeFirst();
    if (!key) throw notFound("API key");
    if (key.revokedAt !== null) return;
    if (apiKeyId === tx.principal.keyId && admins.every((admin) => admin.id === apiKeyId)) {
      throw conflict("This is the workspace's last active admin key: create another admin key before revoking it.");
    }
    await revokeApiKey(tx, apiKeyId);
  });
}
