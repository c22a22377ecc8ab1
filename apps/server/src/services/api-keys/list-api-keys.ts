import type { ServiceContext } from "../context.ts";
import type { QueryOf } from "../operation-input.ts";
import { paginate } from "../pagination.ts";
import { toApiKey } from "./api-key.ts";

/** The workspace's keys, revoked ones included, without secrets; with when each was last used. */
export function listApiKeys(ctx: ServiceContext, query: QueryOf<"listApiKeys">) {
  const select = ctx.db
    .selectFrom("apiKeys")
    .leftJoin("apiKeyUsage", "apiKeyUsage.keyId", "apiKeys.id")
    .select([
      "apiKeys.id",
      "apiKeys.name",
      "apiKeys.role",
      "apiKeys.projectIds",
      "apiKeys.createdAt",
      "apiKeys.expiresAt",
      "apiKeys.revokedAt",
      "apiKeyUsage.lastUsedAt",
    ])
    .where("apiKeys.workspaceId", "=", ctx.principal.workspaceId);
  return paginate(ctx, {
    operation: "listApiKeys",
    filters: {},
    page: query,
    table: "apiKeys",
    select,
    toItem: toApiKey,
  });
}
