import { type ErrorDetail, failIfInvalid, notFound } from "../../errors.ts";
import { projectIdsInWorkspace } from "../admin/lookups.ts";
import { createApiKey as storeApiKey } from "../admin/workspaces.ts";
import type { ServiceContext } from "../context.ts";
import type { BodyOf, Unread } from "../operation-input.ts";
import type { ApiKey } from "./api-key.ts";

/**
 * A new key of the caller's workspace, through the CLI's own verb (services/admin/workspaces.ts); the full key
 * is in this answer only.
 */
export async function createApiKey(
  ctx: ServiceContext,
  body: BodyOf<"createApiKey">,
): Promise<ApiKey & { key: string }> {
  const { name, role, projectIds, expiresAt, ...unread } = body;
  unread satisfies Unread;
  const now = ctx.now();
  const issues: ErrorDetail[] = [];
  if (expiresAt !== undefined && expiresAt <= now) issues.push({ field: "expiresAt", issue: "must be in the future" });
  failIfInvalid(issues);
  const workspaceId = ctx.principal.workspaceId;
  const restriction = projectIds === undefined ? null : [...new Set(projectIds)];
  if (restriction) {
    const found = await projectIdsInWorkspace(ctx, workspaceId, restriction);
    if (found.length !== restriction.length) throw notFound("Project");
  }
  const created = await storeApiKey(ctx, {
    workspaceId,
    name,
    role,
    projectIds: restriction,
    expiresAt: expiresAt ?? null,
  });
  return {
    id: created.id,
    name,
    role,
    projectIds: restriction,
    createdAt: created.createdAt,
    expiresAt: expiresAt ?? null,
    revokedAt: null,
    lastUsedAt: null,
    key: created.key as string,
  };
}
