/**
 * Configuration from the environment, for the server (main.ts) and the CLI. Every problem is collected and
 * reported at once as a ConfigError, which the entry points print as a message (exit code 1), not a stack.
 *
 * Relative SQLite paths are resolved against the repository root (the directory of Pharos's root
 * package.json), whatever the working directory: `pnpm start`, `pnpm pharos …` and the server's own package
 * scripts (which run in apps/server) then all open the same `./data/pharos.db`.
 */
import { existsSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { storedFormOfKey } from "./auth/api-keys.ts";
import { RATE_LIMIT_SCOPES, type RateClass, type RateLimitScope, type RateLimits } from "./http/rate-limit.ts";
import { parseSecretKey } from "./secrets/secret-key.ts";
import { DEFAULT_WRITE_BATCH, type WriteBatcherOptions } from "./services/logs/write-batcher.ts";

/** The directory of pnpm-workspace.yaml above this module, whether it runs from src/ or from the dist/ bundle. */
export const REPO_ROOT = findUp(dirname(fileURLToPath(import.meta.url)), "pnpm-workspace.yaml");

function findUp(start: string, file: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, file))) return dir;
    if (dirname(dir) === dir) throw new Error(`no ${file} above ${start}`);
  }
}
export const DEFAULT_DATABASE_URL = "sqlite:./data/pharos.db";
export const DEFAULT_PORT = 8080;
/** Every interface: the server is meant to be reached from other machines and containers (keys guard /v2). */
export const DEFAULT_HOST = "0.0.0.0";
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join("\n")}`);
  }
}

export interface ServerConfig {
  port: number;
  host: string;
  /** `sqlite:<absolute path>` (or `sqlite::memory:`) or a `postgres://` URL. */
  databaseUrl: string;
  /** PHAROS_BOOTSTRAP_API_KEY in its stored form. */
  bootstrapKey?: { id: string; secretHash: string };
  logLevel: LogLevel;
  /** The built API reference, served at /docs. */
  docsHtmlPath: string;
  /** The built web console, served at `/`. */
  consoleDir: string;
  /** Requests per minute per workspace, by class (PHAROS_RATE_LIMIT_*); unset classes keep their default. */
  rateLimits: Partial<RateLimits>;
  /** PHAROS_RATE_LIMIT_SCOPE: `shared` (default; on PostgreSQL, one count for every replica) or `process`. */
  rateLimitScope: RateLimitScope;
  /** PHAROS_SECRET_KEY; unset = the data directory's key (SQLite only: PostgreSQL requires the variable). */
  secretKey?: Buffer;
  evaluations: EvaluationConfig;
  /**
   * How long a stop (SIGTERM/SIGINT) may take before the process exits whatever is still pending, in ms
   * (PHAROS_SHUTDOWN_GRACE_MS, default 10 000); see shutdown.ts.
   */
  shutdownGraceMs: number;
  http: HttpTimeouts;
  /** Bounds of the log writes waiting for storage (PHAROS_LOG_WRITE_QUEUE_WRITES, PHAROS_LOG_WRITE_QUEUE_MB). */
  logWriteQueue: Pick<WriteBatcherOptions, "maxPendingWrites" | "maxPendingBytes">;
  /**
   * Webhook deliveries: whether endpoints may be on private addresses (PHAROS_WEBHOOKS_ALLOW_PRIVATE, `true`
   * or `false`, default false) and how long one attempt may take (PHAROS_WEBHOOK_TIMEOUT_MS, default 10 000).
   */
  webhooks: { allowPrivateAddresses: boolean; timeoutMs: number };
}

export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;
const MIB = 1024 * 1024;

/** Limits on how long a client may take (main.ts gives them to Node's HTTP server). */
export interface HttpTimeouts {
  /** To send the request's headers (PHAROS_HEADERS_TIMEOUT_MS): a client trickling them is cut off. */
  headersTimeoutMs: number;
  /** To send the whole request, body included (PHAROS_REQUEST_TIMEOUT_MS): at least `headersTimeoutMs`. */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open (PHAROS_KEEP_ALIVE_TIMEOUT_MS). */
  keepAliveTimeoutMs: number;
}

/**
 * Node's defaults (60 s for headers, 300 s for a request, checked every 30 s) let a client trickling bytes hold a
 * connection for minutes. A request's headers take milliseconds; a 32 MB body at 1 MB/s takes 32 s.
 */
export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
};

export interface EvaluationConfig {
  /** Whether this process works on evaluation runs (PHAROS_WORKER: `embedded`, the default, or `off`). */
  embeddedWorker: boolean;
  /** Rows evaluated at once per worker (PHAROS_EVALUATION_CONCURRENCY, 1–100, default 5). */
  concurrency: number;
  /** Limit for one provider call, retries included (PHAROS_PROVIDER_TIMEOUT_MS, default 60 000). */
  providerTimeoutMs: number;
  /** Retries of a provider call answered 429 or 5xx (PHAROS_PROVIDER_MAX_RETRIES, 0–10, default 2). */
  providerMaxRetries: number;
  /**
   * How long a worker's claim on rows lasts without renewal (PHAROS_EVALUATION_LEASE_MS, default 30 000):
   * the rows of a worker that died wait this long before another worker takes them.
   */
  leaseMs: number;
  /**
   * Judge calls one `llm-as-a-judge` evaluator may make per minute grading live spans, across workers
   * (PHAROS_ONLINE_JUDGE_CALLS_PER_MINUTE, 1–100 000, default 60).
   */
  onlineJudgeCallsPerMinute: number;
}

export const DEFAULT_EVALUATION_CONFIG: EvaluationConfig = {
  embeddedWorker: true,
  concurrency: 5,
  providerTimeoutMs: 60_000,
  providerMaxRetries: 2,
  leaseMs: 30_000,
  onlineJudgeCallsPerMinute: 60,
};

const RATE_LIMIT_VARIABLES: Record<RateClass, string> = {
  logTraces: "PHAROS_RATE_LIMIT_LOG_TRACES",
  logSpans: "PHAROS_RATE_LIMIT_LOG_SPANS",
  deployments: "PHAROS_RATE_LIMIT_DEPLOYMENTS",
  other: "PHAROS_RATE_LIMIT_OTHER",
};

type Env = Record<string, string | undefined>;

/** An unset and an empty variable mean the same: the default. */
const read = (env: Env, name: string) => {
  const value = env[name]?.trim();
  return value === undefined || value === "" ? undefined : value;
};

/** `sqlite:<path>` with a relative path made absolute (see the header), or a checked `postgres://` URL. */
export function resolveDatabaseUrl(value: string | undefined, root = REPO_ROOT): string {
  const url = value ?? DEFAULT_DATABASE_URL;
  if (/^postgres(ql)?:\/\//i.test(url)) {
    try {
      new URL(url);
    } catch {
      throw new ConfigError([`DATABASE_URL is not a valid URL: ${redactDatabaseUrl(url)}`]);
    }
    return url;
  }
  if (url.startsWith("sqlite:")) {
    const path = url.slice("sqlite:".length).replace(/^\/\//, "");
    if (path === "")
      throw new ConfigError(["DATABASE_URL has no file path: use sqlite:<path>, e.g. sqlite:./data/pharos.db"]);
    return path === ":memory:" || isAbsolute(path) ? `sqlite:${path}` : `sqlite:${resolve(root, path)}`;
  }
  throw new ConfigError([
    `DATABASE_URL must be sqlite:<file path> or postgres://user:password@host:port/database, not "${redactDatabaseUrl(url)}"`,
  ]);
}

/** The URL with any password replaced, for messages and logs. */
export function redactDatabaseUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*):[^@/]*@/i, "$1:***@");
}

export function loadServerConfig(env: Env, root = REPO_ROOT): ServerConfig {
  const problems: string[] = [];

  let port = DEFAULT_PORT;
  const portText = read(env, "PORT");
  if (portText !== undefined) {
    port = Number(portText);
    if (!/^\d+$/.test(portText) || port > 65_535) {
      problems.push(`PORT must be a whole number from 0 to 65535 (0 picks a free port), not "${portText}"`);
    }
  }

  const host = read(env, "HOST") ?? DEFAULT_HOST;

  let databaseUrl = "";
  try {
    databaseUrl = resolveDatabaseUrl(read(env, "DATABASE_URL"), root);
  } catch (error) {
    problems.push(...(error as ConfigError).problems);
  }

  let bootstrapKey: ServerConfig["bootstrapKey"];
  const presented = read(env, "PHAROS_BOOTSTRAP_API_KEY");
  if (presented !== undefined) {
    bootstrapKey = storedFormOfKey(presented);
    if (!bootstrapKey) {
      problems.push(
        "PHAROS_BOOTSTRAP_API_KEY is not a Pharos API key: expected phk_<26-character ULID>_<43 base64url characters>",
      );
    }
  }

  const levelText = read(env, "LOG_LEVEL") ?? "info";
  const logLevel = levelText.toLowerCase() as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, not "${levelText}"`);
  }

  const rateLimits: Partial<RateLimits> = {};
  for (const [rateClass, name] of Object.entries(RATE_LIMIT_VARIABLES) as [RateClass, string][]) {
    const text = read(env, name);
    if (text === undefined) continue;
    if (!/^[1-9]\d{0,8}$/.test(text))
      problems.push(`${name} must be a whole number of requests per minute, not "${text}"`);
    else rateLimits[rateClass] = Number(text);
  }

  const scopeText = read(env, "PHAROS_RATE_LIMIT_SCOPE") ?? "shared";
  const rateLimitScope = scopeText as RateLimitScope;
  if (!RATE_LIMIT_SCOPES.includes(rateLimitScope)) {
    problems.push(`PHAROS_RATE_LIMIT_SCOPE must be ${RATE_LIMIT_SCOPES.join(" or ")}, not "${scopeText}"`);
  }

  let secretKey: Buffer | undefined;
  const secretKeyText = read(env, "PHAROS_SECRET_KEY");
  if (secretKeyText !== undefined) {
    secretKey = parseSecretKey(secretKeyText);
    if (!secretKey) {
      problems.push("PHAROS_SECRET_KEY must be 32 bytes as 64 hex characters or base64 (`openssl rand -hex 32`)");
    }
  } else if (databaseUrl.startsWith("postgres")) {
    problems.push(
      "PHAROS_SECRET_KEY is required with PostgreSQL: every server and worker must share the key that encrypts provider credentials (`openssl rand -hex 32`)",
    );
  }

  const evaluations = loadEvaluationConfig(env, problems);
  const shutdownGraceMs = readWholeNumber(
    env,
    problems,
    "PHAROS_SHUTDOWN_GRACE_MS",
    1000,
    600_000,
    DEFAULT_SHUTDOWN_GRACE_MS,
  );

  const http = loadHttpTimeouts(env, problems);
  const { maxPendingWrites, maxPendingBytes } = DEFAULT_WRITE_BATCH;
  const logWriteQueue = {
    maxPendingWrites: readWholeNumber(env, problems, "PHAROS_LOG_WRITE_QUEUE_WRITES", 1, 100_000, maxPendingWrites),
    maxPendingBytes:
      readWholeNumber(env, problems, "PHAROS_LOG_WRITE_QUEUE_MB", 1, 65_536, maxPendingBytes / MIB) * MIB,
  };

  const allowPrivateText = (read(env, "PHAROS_WEBHOOKS_ALLOW_PRIVATE") ?? "false").toLowerCase();
  if (allowPrivateText !== "true" && allowPrivateText !== "false") {
    problems.push(
      `PHAROS_WEBHOOKS_ALLOW_PRIVATE must be true or false, not "${read(env, "PHAROS_WEBHOOKS_ALLOW_PRIVATE")}"`,
    );
  }
  const webhooks = {
    allowPrivateAddresses: allowPrivateText === "true",
    timeoutMs: readWholeNumber(env, problems, "PHAROS_WEBHOOK_TIMEOUT_MS", 1000, 60_000, 10_000),
  };

  if (problems.length > 0) throw new ConfigError(problems);
  return {
    webhooks,
    shutdownGraceMs,
    http,
    logWriteQueue,
    rateLimits,
    rateLimitScope,
    ...(secretKey && { secretKey }),
    evaluations,
    port,
    host,
    databaseUrl,
    ...(bootstrapKey && { bootstrapKey }),
    logLevel,
    docsHtmlPath: resolve(root, "apps/docs/dist/index.html"),
    consoleDir: resolve(root, "apps/console/dist"),
  };
}

/** The evaluation variables, shared by the server and `pharos worker`; problems are appended to `problems`. */
export function loadEvaluationConfig(env: Env, problems: string[]): EvaluationConfig {
  const config = { ...DEFAULT_EVALUATION_CONFIG };
  const worker = read(env, "PHAROS_WORKER");
  if (worker !== undefined) {
    if (worker !== "embedded" && worker !== "off")
      problems.push(`PHAROS_WORKER must be embedded or off, not "${worker}"`);
    config.embeddedWorker = worker === "embedded";
  }
  const integer = (name: string, min: number, max: number, fallback: number) =>
    readWholeNumber(env, problems, name, min, max, fallback);
  config.concurrency = integer("PHAROS_EVALUATION_CONCURRENCY", 1, 100, config.concurrency);
  config.providerTimeoutMs = integer("PHAROS_PROVIDER_TIMEOUT_MS", 1000, 600_000, config.providerTimeoutMs);
  config.providerMaxRetries = integer("PHAROS_PROVIDER_MAX_RETRIES", 0, 10, config.providerMaxRetries);
  config.leaseMs = integer("PHAROS_EVALUATION_LEASE_MS", 1000, 3_600_000, config.leaseMs);
  config.onlineJudgeCallsPerMinute = integer(
    "PHAROS_ONLINE_JUDGE_CALLS_PER_MINUTE",
    1,
    100_000,
    config.onlineJudgeCallsPerMinute,
  );
  return config;
}

function loadHttpTimeouts(env: Env, problems: string[]): HttpTimeouts {
  const { headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs } = DEFAULT_HTTP_TIMEOUTS;
  const timeouts = {
    headersTimeoutMs: readWholeNumber(env, problems, "PHAROS_HEADERS_TIMEOUT_MS", 1000, 600_000, headersTimeoutMs),
    requestTimeoutMs: readWholeNumber(env, problems, "PHAROS_REQUEST_TIMEOUT_MS", 1000, 3_600_000, requestTimeoutMs),
    keepAliveTimeoutMs: readWholeNumber(
      env,
      problems,
      "PHAROS_KEEP_ALIVE_TIMEOUT_MS",
      1000,
      600_000,
      keepAliveTimeoutMs,
    ),
  };
  // Node refuses a headers timeout longer than the request timeout, which covers the headers too.
  if (timeouts.headersTimeoutMs > timeouts.requestTimeoutMs) {
    problems.push(
      `PHAROS_HEADERS_TIMEOUT_MS (${timeouts.headersTimeoutMs}) may not exceed PHAROS_REQUEST_TIMEOUT_MS (${timeouts.requestTimeoutMs})`,
    );
  }
  return timeouts;
}

/** The whole number in `name`, from `min` to `max`; `fallback` when unset or invalid (a problem is appended). */
function readWholeNumber(env: Env, problems: string[], name: string, min: number, max: number, fallback: number) {
  const text = read(env, name);
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) {
    problems.push(`${name} must be a whole number from ${min} to ${max}, not "${text}"`);
    return fallback;
  }
  return value;
}

/** A one-line reason for a failure; connection failures to "localhost" are AggregateErrors without a message. */
export function describeError(error: unknown): string {
  if (error instanceof AggregateError && error.message === "") return error.errors.map(describeError).join("; ");
  if (error instanceof Error) return error.message || String((error as { code?: string }).code ?? error.name);
  return String(error);
}
