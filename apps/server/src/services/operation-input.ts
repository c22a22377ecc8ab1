/**
 * What a service verb takes: the path parameters, query parameters and request body of its operation, typed
 * from the contract's route definitions (as the route's validation outputs them, defaults filled in).
 *
 * A verb destructures every field of its query and body and ends with `unread satisfies Unread` (a list verb
 * hands what is left of its query to `paginate`, which accepts the page parameters only): a field added to the
 * spec then fails to compile until the verb reads it, instead of being silently ignored (operation-input.test.ts
 * proves it for every operation). Verbs take the parts in the order path, query, body.
 */
import type { OperationId, operations } from "@pharos/contract";
import type { z } from "zod";

/** An operation without parameters or body has no `request`: then nothing. */
type RequestOf<Id extends OperationId> = (typeof operations)[Id] extends { request: infer Request } ? Request : never;

export type PathOf<Id extends OperationId> =
  RequestOf<Id> extends { params: infer Params extends z.ZodType } ? z.output<Params> : never;

export type QueryOf<Id extends OperationId> =
  RequestOf<Id> extends { query: infer Query extends z.ZodType } ? z.output<Query> : never;

export type BodyOf<Id extends OperationId> =
  RequestOf<Id> extends { body: { content: { "application/json": { schema: infer Body extends z.ZodType } } } }
    ? z.output<Body>
    : never;

/** What a verb leaves unread of an input part: nothing. */
export type Unread = Record<string, never>;
