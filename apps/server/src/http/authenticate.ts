import { createMiddleware } from "hono/factory";
import { parseKey, secretMatches } from "../auth/api-keys.ts";
import type { KeyUsage } from "../auth/key-usage.ts";
import type { Principal } from "../auth/principal.ts";
import { ApiError } from "../errors.ts";
import type { ServiceContext } from "../services/context.ts";
import type { ReadCache } from "../store/read-cache.ts";
import type { AppEnv } from "./env.ts";

const unauthenticated = () => new ApiError("AUTHENTICATION_REQUIRED", "Missing or invalid API key.");

/**
 * Bearer API key → principal → the request's service context. The key's row comes from the read cache: a
 * revoked or changed key is seen by the next request, whichever process changed it. An expired key is refused
 * with a message that says so; a key let in is marked used (key-usage.ts).
 */
export const authenticate = (
  deps: Omit<ServiceContext, "db" | "principal" | "cache"> & { readCache: ReadCache; keyUsage: KeyUsage },
) =>
  createMiddleware<AppEnv>(async (c, next) => {
    const header = c.req.header("Authorization") ?? "";
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const parsed = match ? parseKey(match[1] as string) : undefined;
    if (!parsed) throw unauthenticated();
    const cache = await deps.readCache.begin();
    const key = await cache.get(`apiKey ${parsed.id}`, () =>
      deps.store.db
        .selectFrom("apiKeys")
        .select(["id", "workspaceId", "role", "projectIds", "secretHash", "revokedAt", "expiresAt"])
        .where("id", "=", parsed.id)
        .executeTakeFirst(),
    );
    if (!key || key.revokedAt !== null || !secretMatches(parsed.secret, key.secretHash)) throw unauthenticated();
    const now = deps.now();
    if (key.expiresAt !== null && now >= key.expiresAt) {
      throw new ApiError(
        "AUTHENTICATION_REQUIRED",
        `This API key expired at ${new Date(key.expiresAt).toISOString()}; create a new one.`,
      );
    }
    deps.keyUsage.record(key.id, now, (error) => c.get("logger")?.warn({ err: error }, "recording a key's use failed"));
    const principal: Principal = {
      workspaceId: key.workspaceId,
      keyId: key.id,
      role: key.role,
      projectIds: key.projectIds === null ? null : (JSON.parse(key.projectIds) as string[]),
    };
    c.set("ctx", {
      db: deps.store.db,
      store: deps.store,
      principal,
      cache,
      now: deps.now,
      newId: deps.newId,
      cursorSecret: deps.cursorSecret,
      logWrites: deps.logWrites,
      secrets: deps.secrets,
      modelCalls: deps.modelCalls,
      wakeWorkers: deps.wakeWorkers,
      webhooks: deps.webhooks,
    });
    await next();
  });
