import { randomUUID } from "node:crypto";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "./env.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Echoes the client's X-Request-Id when it is a UUID, otherwise generates one; on every response. */
export const requestId = createMiddleware<AppEnv>(async (c, next) => {
  const sent = c.req.header("X-Request-Id");
  const id = sent && UUID.test(sent) ? sent : randomUUID();
  c.set("requestId", id);
  c.header("X-Request-Id", id);
  await next();
  c.res.headers.set("X-Request-Id", id);
});
