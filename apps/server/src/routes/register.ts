import type { OpenAPIHono } from "@hono/zod-openapi";
import type { OperationId } from "@pharos/contract";
import { createMiddleware } from "hono/factory";
import { mayPerform } from "../auth/principal.ts";
import { forbidden } from "../errors.ts";
import type { AppEnv } from "../http/env.ts";
import { type RateLimiter, rateClassOf, rateLimited } from "../http/rate-limit.ts";
import { requireUtf8Body } from "../http/request-screen.ts";
import type { RouteDefinition } from "./define-route.ts";

/**
 * The key's role must allow the operation, and the workspace be within its rate limit; both before validation.
 * Every response to a request the limit counted carries the RateLimit headers, errors and 429 included.
 */
const admit = (operationId: OperationId, limiter: RateLimiter) => {
  const rateClass = rateClassOf(operationId);
  return createMiddleware<AppEnv>(async (c, next) => {
    const { principal } = c.var.ctx;
    if (!mayPerform(principal, operationId)) {
      throw forbidden(`This API key's role (${principal.role}) does not allow ${operationId}.`);
    }
    const rate = await limiter.take(principal.workspaceId, rateClass);
    c.header("RateLimit-Policy", rate.policy);
    c.header("RateLimit", rate.remaining);
    if (!rate.admitted) throw rateLimited(rate.resetSeconds);
    await next();
  });
};

export function registerRoutes(
  api: OpenAPIHono<AppEnv>,
  definitions: readonly RouteDefinition[],
  limiter: RateLimiter,
): void {
  for (const { operationId, route, handler, middleware = [] } of definitions) {
    // The definitions are heterogeneous; each was type-checked against its own route by defineRoute.
    api.openapi(
      { ...route, middleware: [admit(operationId, limiter), ...middleware, requireUtf8Body] } as never,
      handler as never,
    );
  }
}
