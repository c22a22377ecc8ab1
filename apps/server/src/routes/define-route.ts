import type { RouteHandler } from "@hono/zod-openapi";
import { type OperationId, operations } from "@pharos/contract";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../http/env.ts";

type Operations = typeof operations;

export interface RouteDefinition<Id extends OperationId = OperationId> {
  operationId: Id;
  route: Operations[Id];
  handler: RouteHandler<Operations[Id], AppEnv>;
  /** Runs after the role check and rate limit, before the body is screened and validated (e.g. to decompress it). */
  middleware?: readonly MiddlewareHandler<AppEnv>[];
}

/** Binds the generated route of one operation to its handler; the handler's input and output are the spec's. */
export function defineRoute<Id extends OperationId>(
  operationId: Id,
  handler: RouteHandler<Operations[Id], AppEnv>,
  middleware?: readonly MiddlewareHandler<AppEnv>[],
): RouteDefinition<Id> {
  return { operationId, route: operations[operationId], handler, ...(middleware && { middleware }) };
}
