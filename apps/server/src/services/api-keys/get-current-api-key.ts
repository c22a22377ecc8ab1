/** GET /api-keys/current: the calling key as a client sees it (never its secret or hash). */
import type { schemas } from "@pharos/contract";
import { ApiError } from "../../errors.ts";
import type { ServiceContext } from "../context.ts";

export type CurrentApiKey = schemas.CurrentApiKey;

export async function getCurrentApiKey(ctx: ServiceContext): Promise<CurrentApiKey> {
  const row = await ctx.db
    .selectFrom("apiKeys")
    .select(["id", "name", "role", "projectIds", "createdAt", "expiresAt"])
    .where("id", "=", ctx.principal.keyId)
    .where("workspaceId", "=", ctx.principal.workspaceId)
    .executeTakeFirst();
  // Authentication found the key a moment ago (through the read cache): only a deletion in between loses it.
  if (!row) throw new ApiError("AUTHENTICATION_REQUIRED", "Missing or invalid API key.");
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    projectIds: row.projectIds === null ? null : (JSON.parse(row.projectIds) as string[]),
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
  };
}
