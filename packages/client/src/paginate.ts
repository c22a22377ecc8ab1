/**
 * Async iteration over cursor-paginated operations: resource lists (GET, `cursor` in the query) and the log
 * searches (POST, `cursor` in the body). Each page's `pagination.nextCursor` is sent back until `hasMore` is false.
 */
import type { components, paths } from "@pharos/contract/types";
import type { MaybeOptionalInit } from "openapi-fetch";
import type { PharosClient } from "./client.ts";
import { PharosApiError } from "./errors.ts";

type Pagination = components["schemas"]["Pagination"];
type JsonOf<T> = T extends { content: { "application/json": infer Body } } ? Body : never;
/** The body of an operation's 200 response. */
type OkBody<Op> = Op extends { responses: { 200: infer R } } ? JsonOf<R> : never;
type OperationOf<P extends keyof paths, M extends "get" | "post"> = paths[P] extends { [K in M]: infer Op }
  ? Op
  : never;

// Wrapped in [ ] so that `never` (a path without that method) is not vacuously a page.
type IsPage<Body> = [Body] extends [never] ? false : [Body] extends [{ pagination: Pagination }] ? true : false;
type HasCursorKey<T> = [T] extends [never]
  ? false
  : [T] extends [object]
    ? "cursor" extends keyof T
      ? true
      : false
    : false;
type QueryOf<Op> = Op extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
type RequestJsonOf<Op> = Op extends { requestBody: { content: { "application/json": infer B } } } ? B : never;

/** Paths whose GET takes a `cursor` query parameter and answers a page. */
export type PaginatedGetPath = {
  [P in keyof paths]: IsPage<OkBody<OperationOf<P, "get">>> extends true
    ? HasCursorKey<QueryOf<OperationOf<P, "get">>> extends true
      ? P
      : never
    : never;
}[keyof paths];

/** Paths whose POST takes a `cursor` in the body and answers a page (the log searches). */
export type PaginatedPostPath = {
  [P in keyof paths]: IsPage<OkBody<OperationOf<P, "post">>> extends true
    ? HasCursorKey<RequestJsonOf<OperationOf<P, "post">>> extends true
      ? P
      : never
    : never;
}[keyof paths];

type ItemsKey<Body> = Exclude<keyof Body, "pagination">;
/** The item type of a page: the element of its one array beside `pagination` (`projects`, `traces`, …). */
export type ItemOf<Body> = {
  [K in ItemsKey<Body>]: Body[K] extends readonly (infer Item)[] ? Item : never;
}[ItemsKey<Body>];

export type PageOf<M extends "GET" | "POST", P> = M extends "GET"
  ? P extends PaginatedGetPath
    ? OkBody<OperationOf<P, "get">>
    : never
  : P extends PaginatedPostPath
    ? OkBody<OperationOf<P, "post">>
    : never;

type InitOf<M extends "GET" | "POST", P extends keyof paths> = MaybeOptionalInit<
  paths[P],
  M extends "GET" ? "get" : "post"
>;
/** The init argument, optional exactly when openapi-fetch's own call would allow leaving it out. */
type InitArgs<M extends "GET" | "POST", P extends keyof paths> =
  undefined extends InitOf<M, P> ? [init?: InitOf<M, P>] : [init: InitOf<M, P>];

/** Yields whole pages (each response body), following `nextCursor`. A non-2xx answer throws PharosApiError. */
export function pages<P extends PaginatedGetPath>(
  client: PharosClient,
  method: "GET",
  path: P,
  ...init: InitArgs<"GET", P>
): AsyncGenerator<PageOf<"GET", P>, void, undefined>;
export function pages<P extends PaginatedPostPath>(
  client: PharosClient,
  method: "POST",
  path: P,
  ...init: InitArgs<"POST", P>
): AsyncGenerator<PageOf<"POST", P>, void, undefined>;
export async function* pages(
  client: PharosClient,
  method: "GET" | "POST",
  path: string,
  init?: object,
): AsyncGenerator<unknown, void, undefined> {
  // The typed overloads above are the contract; inside, one untyped call serves every operation.
  const call = (client as unknown as Record<string, UntypedCall>)[method] as UntypedCall;
  let cursor: string | undefined;
  for (;;) {
    const base = (init ?? {}) as Record<string, unknown>;
    const pageInit = cursor === undefined ? base : withCursor(method, base, cursor);
    const { data, error, response } = await call(path, pageInit);
    if (!response.ok || data === undefined) throw new PharosApiError(response, error);
    const page = data as { pagination?: Pagination };
    if (!page.pagination) throw new Error(`${method} ${path} answered without \`pagination\`.`);
    yield data;
    const next = page.pagination.nextCursor;
    if (!page.pagination.hasMore || next === null) return;
    if (next === cursor) throw new Error(`${method} ${path} answered the same cursor twice.`);
    cursor = next;
  }
}

/** Yields every item of every page, in the server's order. */
export function paginate<P extends PaginatedGetPath>(
  client: PharosClient,
  method: "GET",
  path: P,
  ...init: InitArgs<"GET", P>
): AsyncGenerator<ItemOf<PageOf<"GET", P>>, void, undefined>;
export function paginate<P extends PaginatedPostPath>(
  client: PharosClient,
  method: "POST",
  path: P,
  ...init: InitArgs<"POST", P>
): AsyncGenerator<ItemOf<PageOf<"POST", P>>, void, undefined>;
export async function* paginate(
  client: PharosClient,
  method: "GET" | "POST",
  path: string,
  init?: object,
): AsyncGenerator<unknown, void, undefined> {
  for await (const page of (pages as UntypedPages)(client, method, path, init)) {
    const key = Object.keys(page).find((k) => k !== "pagination" && Array.isArray(page[k]));
    if (key === undefined) throw new Error(`${method} ${path} answered a page without an item array.`);
    yield* page[key] as unknown[];
  }
}

type UntypedCall = (
  path: string,
  init: Record<string, unknown>,
) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
type UntypedPages = (
  client: PharosClient,
  method: string,
  path: string,
  init?: object,
) => AsyncGenerator<Record<string, unknown>>;

function withCursor(method: "GET" | "POST", init: Record<string, unknown>, cursor: string) {
  if (method === "POST") return { ...init, body: { ...(init.body as object), cursor } };
  const params = (init.params as { query?: object } | undefined) ?? {};
  return { ...init, params: { ...params, query: { ...params.query, cursor } } };
}
