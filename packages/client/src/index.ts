/**
 * The Pharos SDK. `createPharos` gives the typed API client (openapi-fetch over the spec's types, with auth,
 * request ids, retries and pagination), a monitor for traces and spans, and a cache of deployed prompts;
 * `injectVariables` fills a prompt's placeholders and `verifyWebhook` checks a webhook's signature. Only web
 * platform APIs (fetch, Web Crypto, timers): it runs in Node 20, browsers and edge runtimes.
 */
export type { Middleware } from "openapi-fetch";
export {
  authMiddleware,
  type ClientOptions,
  createClient,
  type PharosClient,
  requestIdMiddleware,
  resolveBaseUrl,
} from "./client.ts";
export {
  type DeploymentCacheStatus,
  type LatestDeployment,
  type LatestDeploymentOptions,
  MAX_REFRESH_INTERVAL_MS,
  MIN_REFRESH_INTERVAL_MS,
} from "./deployment-cache.ts";
export { PharosApiError, unwrap } from "./errors.ts";
export { type InjectedPrompt, injectVariables } from "./inject-variables.ts";
export type { Backoff } from "./monitor/delivery.ts";
export type {
  Span,
  SpanEnd,
  SpanOptions,
  SpanUpdate,
  Trace,
  TraceEnd,
  TraceOptions,
  TraceUpdate,
} from "./monitor/handles.ts";
export type { MonitorError, MonitorStatus } from "./monitor/ledger.ts";
export type { FlushOptions, Monitor, MonitorOptions, ShutdownOptions } from "./monitor/monitor.ts";
export {
  type ItemOf,
  type PageOf,
  type PaginatedGetPath,
  type PaginatedPostPath,
  pages,
  paginate,
} from "./paginate.ts";
export { createPharos, type Pharos } from "./pharos.ts";
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
export type { Deployment, LogSpanContent, PromptMessage, PromptSnapshot, Schemas } from "./types.ts";
export { type VerifyWebhookOptions, verifyWebhook } from "./webhooks.ts";
