/**
 * The Pharos app, composed in one place. Middleware order: request id → access log → (for /v2) body limit →
 * (log writes) overload → authentication → routes (role check, rate limit, validation, handler) → one onError.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { OpenAPIHono } from "@hono/zod-openapi";
import { openapiDocument } from "@pharos/contract";
import pino, { type Logger } from "pino";
import { KeyUsage } from "./auth/key-usage.ts";
import { DEFAULT_EVALUATION_CONFIG } from "./config.ts";
import { ApiError } from "./errors.ts";
import { accessLog } from "./http/access-log.ts";
import { authenticate } from "./http/authenticate.ts";
import { limitBody } from "./http/body-limit.ts";
import { serveConsole } from "./http/console.ts";
import type { AppEnv } from "./http/env.ts";
import { errorResponse, onError } from "./http/on-error.ts";
import { DEFAULT_RATE_LIMITS, RateLimiter, type RateLimitScope, type RateLimits } from "./http/rate-limit.ts";
import { requestId } from "./http/request-id.ts";
import { validationHook } from "./http/validation-hook.ts";
import { createIdGenerator } from "./ids.ts";
import type { CallOptions } from "./llm/model-target.ts";
import { routeDefinitions } from "./routes/index.ts";
import { registerRoutes } from "./routes/register.ts";
import { createSecretBox, type SecretBox } from "./secrets/secret-box.ts";
import { WriteBatcher, type WriteBatcherOptions } from "./services/logs/write-batcher.ts";
import { DEFAULT_WEBHOOK_SETTINGS, type WebhookSettings } from "./services/webhooks/settings.ts";
import { processRateWindows } from "./store/rate-windows.ts";
import { ReadCache } from "./store/read-cache.ts";
import { databaseSecret, type Store } from "./store/store.ts";

export const MAX_BODY_BYTES = 32 * 1024 * 1024;

export interface AppOptions {
  store: Store;
  now?: () => number;
  logger?: Logger;
  /** The built docs page (apps/docs/dist/index.html), served at /docs when present. */
  docsHtmlPath?: string;
  /** The built console (apps/console/dist), served at `/` when present. */
  consoleDir?: string;
  /** Requests per minute per workspace, by class; defaults in http/rate-limit.ts. */
  rateLimits?: Partial<RateLimits>;
  /** Where requests are counted; default `shared`: the store's counters, which replicas share on PostgreSQL. */
  rateLimitScope?: RateLimitScope;
  /** Group commit of log writes: the batching window (ms), the most jobs per batch, and the bounds of the queue. */
  logWriteBatch?: Partial<WriteBatcherOptions>;
  /** Seals provider credentials; default: a random key for this process only (tests). */
  secrets?: SecretBox;
  /** Timeout and retries of a model call made within a request (runPrompt); default the evaluation workers'. */
  modelCalls?: Omit<CallOptions, "signal">;
  /** Called when a run is queued, to wake this process's evaluation worker. */
  wakeWorkers?: () => void;
  /** Webhook settings (private addresses, delivery timeout) and the wake-up of this process's deliverer. */
  webhooks?: Partial<WebhookSettings>;
}

export async function createApp(options: AppOptions) {
  const now = options.now ?? Date.now;
  const logger = options.logger ?? pino({ level: "silent" });
  const cursorSecret = await databaseSecret(options.store.db, "cursorSecret");

  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.use("*", requestId);
  app.use("*", accessLog(logger));

  app.get("/v2/openapi.json", (c) => c.json(openapiDocument));
  app.get("/docs", (c) => {
    const path = options.docsHtmlPath;
    if (!path || !existsSync(path)) {
      throw new ApiError("RESOURCE_NOT_FOUND", "The docs site is not built: run `pnpm docs:build`.");
    }
    return c.html(readFileSync(path, "utf8"));
  });

  const api = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  api.use("*", limitBody(MAX_BODY_BYTES));
  // One batcher per app: concurrent log writes of every request share its transactions (group commit).
  const logWrites = new WriteBatcher(options.store, options.logWriteBatch);
  const secrets = options.secrets ?? createSecretBox(randomBytes(32));
  const readCache = new ReadCache(() => options.store.readCacheGeneration());
  // Log writes wait for their turn (or are refused) before anything costly: before their bodies are parsed and
  // before authentication, which reads the database's cache generation (ADR 0010).
  for (const path of ["/logs/trace", "/logs/span", "/otel/v1/traces"]) {
    api.use(path, async (_, next) => {
      const release = await logWrites.admit();
      try {
        await next();
      } finally {
        release();
      }
    });
  }
  api.use(
    "*",
    authenticate({
      readCache,
      keyUsage: new KeyUsage(options.store),
      store: options.store,
      now,
      newId: createIdGenerator(now),
      cursorSecret,
      logWrites,
      secrets,
      modelCalls: options.modelCalls ?? {
        timeoutMs: DEFAULT_EVALUATION_CONFIG.providerTimeoutMs,
        maxRetries: DEFAULT_EVALUATION_CONFIG.providerMaxRetries,
      },
      wakeWorkers: options.wakeWorkers ?? (() => {}),
      webhooks: { ...DEFAULT_WEBHOOK_SETTINGS, ...options.webhooks },
    }),
  );
  const rateWindows = options.rateLimitScope === "process" ? processRateWindows() : options.store.rateWindows;
  registerRoutes(
    api,
    routeDefinitions,
    new RateLimiter({ ...DEFAULT_RATE_LIMITS, ...options.rateLimits }, rateWindows, now),
  );
  app.route("/v2", api);
  serveConsole(app, options.consoleDir);

  app.notFound((c) => errorResponse(c, new ApiError("RESOURCE_NOT_FOUND", "No such operation.")));
  app.onError(onError);
  api.onError(onError);
  // `logWrites` and `readCache` are exposed for tests and benchmarks (their `stats`), never over HTTP.
  return Object.assign(app, { logWrites, readCache });
}
