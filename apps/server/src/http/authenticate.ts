import { createMiddleware } from "hono/factory";
import { parseKey, secretMatches } from "../auth/api-keys.ts";
import type { Principal } from "../auth/principal.ts";
import { ApiError } from "../errors.ts";
import type { IdGenerator } from "../ids.ts";
import type { WriteBatcher } from "../services/logs/write-batcher.ts";
import type { Store } from "../store/store.ts";
import type { AppEnv } from "./env.ts";

const unauthenticated = () => new ApiError("AUTHENTICATION_REQUIRED", "Missing or invalid API key.");

/** Bearer API key → principal → the request's service context. */
export const authenticate = (deps: {
  store: Store;
  now: () => number;
  newId: IdGenerator;
  cursorSecret: string;
  logWrites: WriteBatcher;
}) =>
  createMiddleware<AppEnv>(async (c, next) => {
    const header = c.req.header("Authorization") ?? "";
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const parsed = match ? parseKey(match[1] as string) : undefined;
    if (!parsed) throw unauthenticated();
    const key = await deps.store.db
      .selectFrom("apiKeys")
      .select(["id", "workspaceId", "role", "projectIds", "secretHash", "revokedAt"])
      .where("id", "=", parsed.id)
      .executeTakeFirst();
    if (!key || key.revokedAt !== null || !secretMatches(parsed.secret, key.secretHash)) throw unauthenticated();
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
      now: deps.now,
      newId: deps.newId,
      cursorSecret: deps.cursorSecret,
      logWrites: deps.logWrites,
    });
    await next();
  });
