/** Reads the CLI needs before it changes workspaces and keys (operator authority, like workspaces.ts). */
import type { AdminContext } from "./workspaces.ts";

export function getWorkspace(ctx: AdminContext, workspaceId: string) {
  return ctx.db
    .selectFrom("workspaces")
    .select(["id", "name", "createdAt"])
    .where("id", "=", workspaceId)
    .executeTakeFirst();
}

/** Which of `projectIds` are projects of the workspace. */
export async function projectIdsInWorkspace(ctx: AdminContext, workspaceId: string, projectIds: readonly string[]) {
  if (projectIds.length === 0) return [];
  const rows = await ctx.db
    .selectFrom("projects")
    .select("id")
    .where("workspaceId", "=", workspaceId)
    .where("id", "in", [...projectIds])
    .execute();
  return rows.map((row) => row.id);
}

export function getApiKey(ctx: AdminContext, keyId: string) {
  return ctx.db
    .selectFrom("apiKeys")
    .select(["id", "workspaceId", "name", "role", "projectIds", "createdAt", "revokedAt"])
    .where("id", "=", keyId)
    .executeTakeFirst();
}
