/** The Pharos v2 client: openapi-fetch over the spec's types, with auth, request ids, retries and pagination. */
export type { Middleware } from "openapi-fetch";
export {
  authMiddleware,
  type ClientOptions,
  createClient,
  type PharosClient,
  requestIdMiddleware,
  resolveBaseUrl,
} from "./client.ts";
export { PharosApiError, unwrap } from "./errors.ts";
export {
  type ItemOf,
  type PageOf,
  type PaginatedGetPath,
  type PaginatedPostPath,
  pages,
  paginate,
} from "./paginate.ts";
export {
  backoffDelay,
  defaultRetryOptions,
  type FetchLike,
  isRetryableStatus,
  parseRetryAfter,
  type RetryEvent,
  type RetryOptions,
  withRetries,
} from "./retry.ts";
