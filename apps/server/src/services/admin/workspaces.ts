/**
 * Administration of workspaces and API keys (CLI and first start). These run with the operator's authority,
 * not an API key's, so they take the database directly.
 */
import type { Kysely } from "kysely";
import { issueKey } from "../../auth/api-keys.ts";
import type { Role } from "../../auth/roles.ts";
import { createIdGenerator, type IdGenerator } from "../../ids.ts";
import type { Database } from "../../store/schema.ts";
import type { Store } from "../../store/store.ts";
import { toJson } from "../json.ts";

export interface AdminContext {
  store: Store;
  /** The store's handle, or a transaction's. */
  db: Kysely<Database>;
  now: () => number;
  newId: IdGenerator;
}

export function adminContext(store: Store, now: () => number = Date.now): AdminContext {
  return { store, db: store.db, now, newId: createIdGenerator(now) };
}

export async function createWorkspace(ctx: AdminContext, name: string) {
  const now = ctx.now();
  const workspace = { id: ctx.newId("workspace"), name, createdAt: now, updatedAt: now };
  await ctx.db.insertInto("workspaces").values(workspace).execute();
  return workspace;
}

export async function createProjectForWorkspace(ctx: AdminContext, workspaceId: string, title: string) {
  const now = ctx.now();
  const project = {
    id: ctx.newId("project"),
    workspaceId,
    title,
    icon: toJson({ type: "emoji", value: "📁" }),
    maskingRules: "[]",
    retentionDays: null,
    createdAt: now,
    updatedAt: now,
  };
  await ctx.db.insertInto("projects").values(project).execute();
  return project;
}

export interface NewApiKey {
  workspaceId: string;
  name: string;
  role: Role;
  projectIds: string[] | null;
  /** Use this exact key (bootstrap from PHAROS_BOOTSTRAP_API_KEY) instead of generating one. */
  presetKey?: { id: string; secretHash: string };
  /** Unix ms from which the key is refused (401); omitted or null: never. */
  expiresAt?: number | null;
}

/** Stores a key and returns it; the full key is only in this return value. */
export async function createApiKey(ctx: AdminContext, input: NewApiKey) {
  const issued = input.presetKey ?? issueKey(ctx.newId("apiKey"));
  const createdAt = ctx.now();
  await ctx.db
    .insertInto("apiKeys")
    .values({
      id: issued.id,
      workspaceId: input.workspaceId,
      name: input.name,
      secretHash: issued.secretHash,
      role: input.role,
      projectIds: input.projectIds === null ? null : toJson(input.projectIds),
      createdAt,
      revokedAt: null,
      expiresAt: input.expiresAt ?? null,
    })
    .execute();
  return { id: issued.id, key: "key" in issued ? issued.key : undefined, createdAt };
}

export async function listApiKeys(ctx: AdminContext, workspaceId?: string) {
  let query = ctx.db
    .selectFrom("apiKeys")
    .leftJoin("apiKeyUsage", "apiKeyUsage.keyId", "apiKeys.id")
    .select([
      "apiKeys.id",
      "apiKeys.workspaceId",
      "apiKeys.name",
      "apiKeys.role",
      "apiKeys.projectIds",
      "apiKeys.createdAt",
      "apiKeys.revokedAt",
      "apiKeys.expiresAt",
      "apiKeyUsage.lastUsedAt",
    ])
    .orderBy("apiKeys.createdAt");
  if (workspaceId) query = query.where("apiKeys.workspaceId", "=", workspaceId);
  return query.execute();
}

export async function revokeApiKey(ctx: AdminContext, keyId: string): Promise<boolean> {
  const result = await ctx.db
    .updateTable("apiKeys")
    .set({ revokedAt: ctx.now() })
    .where("id", "=", keyId)
    .where("revokedAt", "is", null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
