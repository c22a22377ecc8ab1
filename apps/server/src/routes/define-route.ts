import type { RouteHandler } from "@hono/zod-openapi";
import { type OperationId, operations } from "@pharos/contract";
import type { MiddlewareHandler } from "hono";
import type { z } from "zod";
import type { AppEnv } from "../http/env.ts";

type Operations = typeof operations;

export interface RouteDefinition<Id extends OperationId = OperationId> {
  operationId: Id;
  route: Operations[Id];
  handler: RouteHandler<Operations[Id], AppEnv>;
  /** Runs after the role check and rate limit, before the body is screened and validated (e.g. to decompress it). */
  middleware?: readonly MiddlewareHandler<AppEnv>[];
}

/**
 * Header parameters that are conditions of the request rather than input: no value is invalid (one that names
 * nothing matches nothing), so they are served without a validator and their handlers read them with
 * `c.req.header` (define-route.test.ts). A zod validator of If-None-Match cost each GET /deployments about 5 µs
 * of CPU, a tenth of the read (measured with and without it).
 */
export const CONDITIONAL_HEADERS: readonly string[] = ["If-None-Match"];

/** Binds the generated route of one operation to its handler; the handler's input and output are the spec's. */
export function defineRoute<Id extends OperationId>(
  operationId: Id,
  handler: RouteHandler<Operations[Id], AppEnv>,
  middleware?: readonly MiddlewareHandler<AppEnv>[],
): RouteDefinition<Id> {
  return {
    operationId,
    route: withoutConditionalHeaders(operations[operationId]),
    handler,
    ...(middleware && { middleware }),
  };
}

function withoutConditionalHeaders<Route extends Operations[OperationId]>(route: Route): Route {
  // An operation without parameters or body (getCurrentApiKey) has no `request` at all.
  const declared = "request" in route ? (route.request as { headers?: z.ZodObject }) : undefined;
  const headers = declared?.headers;
  if (!headers || !CONDITIONAL_HEADERS.some((name) => name in headers.shape)) return route;
  const { headers: _validated, ...request } = declared as { headers: z.ZodObject };
  const kept = Object.keys(headers.shape).filter((name) => !CONDITIONAL_HEADERS.includes(name));
  const mask: Record<string, true> = Object.fromEntries(kept.map((name) => [name, true]));
  const keptHeaders = kept.length > 0 && headers.pick(mask as Record<string, true> & Record<number, never>);
  return { ...route, request: { ...request, ...(keptHeaders && { headers: keptHeaders }) } };
}
