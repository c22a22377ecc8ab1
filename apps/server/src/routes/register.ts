import type { OpenAPIHono } from "@hono/zod-openapi";
import type { OperationId } from "@pharos/contract";
import { createMiddleware } from "hono/factory";
import { mayPerform } from "../auth/principal.ts";
import { forbidden } from "../errors.ts";
import type { AppEnv } from "../http/env.ts";
import type { RouteDefinition } from "./define-route.ts";

/** The key's role must allow the operation; checked before the request is validated. */
const allow = (operationId: OperationId) =>
  createMiddleware<AppEnv>(async (c, next) => {
    if (!mayPerform(c.var.ctx.principal, operationId)) {
      throw forbidden(`This API key's role (${c.var.ctx.principal.role}) does not allow ${operationId}.`);
    }
    await next();
  });

export function registerRoutes(api: OpenAPIHono<AppEnv>, definitions: readonly RouteDefinition[]): void {
  for (const { operationId, route, handler } of definitions) {
    // The definitions are heterogeneous; each was type-checked against its own route by defineRoute.
    api.openapi({ ...route, middleware: [allow(operationId)] } as never, handler as never);
  }
}
