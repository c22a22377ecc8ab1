/**
 * The server process (`pnpm start`): configuration from the environment → open the database and migrate →
 * first-start bootstrap → serve on PORT, access logs as JSON lines on stdout → on SIGTERM/SIGINT stop
 * accepting connections, let in-flight requests finish, close the database and exit 0, all within the grace
 * period (PHAROS_SHUTDOWN_GRACE_MS); past it, exit EXIT_UNCLEAN whatever is still pending (shutdown.ts).
 * A failure to start is one message on stderr and exit code 1.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { setFlagsFromString } from "node:v8";
import { createAdaptorServer } from "@hono/node-server";
import type { Logger } from "pino";
import { createApp } from "./app.ts";
import {
  ConfigError,
  describeError,
  loadServerConfig,
  REPO_ROOT,
  redactDatabaseUrl,
  type ServerConfig,
} from "./config.ts";
import { createIdGenerator } from "./ids.ts";
import { createSecretBox, type SecretBox, verifySecretKey } from "./secrets/secret-box.ts";
import { configuredSecretKey } from "./secrets/secret-key.ts";
import { type BootstrapResult, bootstrapIfEmpty } from "./services/admin/bootstrap.ts";
import { adminContext } from "./services/admin/workspaces.ts";
import { exitAfter, LOG_FLUSH_MS, type ProcessLog, processLog, workGrace } from "./shutdown.ts";
import { openStore } from "./store/open-store.ts";
import type { Store } from "./store/store.ts";
import { EvaluationWorker } from "./worker/evaluation-worker.ts";
import { RetentionSweeper } from "./worker/retention-sweeper.ts";
import { WebhookDeliverer } from "./worker/webhook-deliverer.ts";

class StartError extends Error {}

/** How often the HTTP server checks its connections against the headers and request timeouts. */
const TIMEOUT_CHECK_MS = 1000;
/**
 * How long the log writes must have been idle before the embedded worker takes live spans at will (ADR 0016):
 * longer than the gap between a batch's answers and the clients' next requests under steady writes.
 */
const INGESTION_QUIET_MS = 50;

/**
 * V8 lets the old generation grow to about four times what survived its last full collection. Log writes keep
 * requests in flight across young collections, so their garbage is promoted: under 50 concurrent writers the
 * heap grew to ~110 MB around ~27 MB of live data, and the RSS passed 200 MB. Collecting at twice the live
 * data keeps it near 150 MB with no throughput lost that `pnpm bench` can measure. A value given to node wins.
 */
function limitHeapGrowth(): void {
  if (!process.execArgv.some((arg) => /^--heap[-_]growing[-_]percent/.test(arg))) {
    setFlagsFromString("--heap-growing-percent=100");
  }
}

async function openDatabase(config: ServerConfig): Promise<Store> {
  const where = redactDatabaseUrl(config.databaseUrl);
  let store: Store | undefined;
  try {
    store = openStore(config.databaseUrl);
    await store.migrate();
    return store;
  } catch (error) {
    await store?.close().catch(() => {});
    throw new StartError(`cannot open the database ${where}: ${describeError(error)}`);
  }
}

async function openSecrets(config: ServerConfig, store: Store): Promise<SecretBox> {
  try {
    const secrets = createSecretBox(configuredSecretKey(config, `${REPO_ROOT}/data`));
    await verifySecretKey(store.db, secrets);
    return secrets;
  } catch (error) {
    await store.close().catch(() => {});
    throw new StartError(describeError(error));
  }
}

function listen(server: Server, config: ServerConfig): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const failed = (error: Error) =>
      reject(new StartError(`cannot listen on ${config.host}:${config.port}: ${describeError(error)}`));
    server.once("error", failed);
    server.listen(config.port, config.host, () => {
      server.off("error", failed);
      resolve(server.address() as AddressInfo);
    });
  });
}

/** The key of a first start, printed once as plain text so it stands out among the JSON log lines. */
function announceBootstrap(result: BootstrapResult, logger: Logger): void {
  if (!result.created) return;
  const created = `workspace "${result.workspace.name}" (${result.workspace.id}), project "${result.project.title}" (${result.project.id})`;
  if (result.apiKey.key === undefined) {
    logger.info(
      { workspaceId: result.workspace.id, projectId: result.project.id, apiKeyId: result.apiKey.id },
      `First start: created ${created} and installed the API key of PHAROS_BOOTSTRAP_API_KEY (${result.apiKey.id})`,
    );
    return;
  }
  const rule = "=".repeat(78);
  process.stdout.write(
    [
      rule,
      `First start: created ${created}`,
      "and an API key with full access to the workspace. The key is shown only this once; store it now:",
      "",
      `    ${result.apiKey.key}`,
      "",
      "Send it as `Authorization: Bearer <key>`. Manage workspaces and keys with `pnpm pharos --help`.",
      rule,
      "",
    ].join("\n"),
  );
  logger.info(
    { workspaceId: result.workspace.id, projectId: result.project.id, apiKeyId: result.apiKey.id },
    `First start: created ${created} and API key ${result.apiKey.id} (printed above, once)`,
  );
}

function publicUrl(config: ServerConfig, address: AddressInfo): string {
  const wildcard = ["0.0.0.0", "::", "[::]"].includes(config.host);
  const host = wildcard ? "localhost" : config.host.includes(":") ? `[${config.host}]` : config.host;
  return `http://${host}:${address.port}`;
}

/** The process's log once the configuration is read, for a failed start to flush as well. */
let openedLog: ProcessLog | undefined;

async function main(): Promise<void> {
  limitHeapGrowth();
  const config = loadServerConfig(process.env);
  const log = processLog(config.logLevel);
  openedLog = log;
  const { logger } = log;
  const store = await openDatabase(config);

  let result: BootstrapResult;
  try {
    const now = Date.now;
    result = await bootstrapIfEmpty(
      adminContext(store, now),
      config.bootstrapKey ? { presetKey: config.bootstrapKey } : {},
    );
  } catch (error) {
    await store.close().catch(() => {});
    throw new StartError(`cannot create the first workspace: ${describeError(error)}`);
  }
  announceBootstrap(result, logger);
  if (!result.created && config.bootstrapKey) {
    logger.info("PHAROS_BOOTSTRAP_API_KEY ignored: the database already has workspaces");
  }

  const secrets = await openSecrets(config, store);
  // The embedded worker grades live spans only while this server's log writes leave it a gap (set below).
  let logWritesBusy = () => false;
  const worker = new EvaluationWorker({
    store,
    secrets,
    logger,
    now: Date.now,
    newId: createIdGenerator(Date.now),
    ...config.evaluations,
    ingestionBusy: () => logWritesBusy(),
    // Outbound calls of `api` dataset columns follow the webhook settings (private addresses, timeout).
    api: config.webhooks,
  });
  const deliverer = new WebhookDeliverer({ store, secrets, logger, now: Date.now, ...config.webhooks });
  const sweeper = new RetentionSweeper({ store, logger, now: Date.now });
  const app = await createApp({
    store,
    logger,
    docsHtmlPath: config.docsHtmlPath,
    consoleDir: config.consoleDir,
    rateLimits: config.rateLimits,
    rateLimitScope: config.rateLimitScope,
    logWriteBatch: config.logWriteQueue,
    secrets,
    modelCalls: { timeoutMs: config.evaluations.providerTimeoutMs, maxRetries: config.evaluations.providerMaxRetries },
    wakeWorkers: () => worker.wake(),
    webhooks: { ...config.webhooks, wake: () => deliverer.wake() },
  });
  // A write in progress or answered within the last INGESTION_QUIET_MS: steady writes leave no gap.
  logWritesBusy = () => app.logWrites.busyWithin(INGESTION_QUIET_MS);
  const server = createAdaptorServer({
    fetch: app.fetch,
    hostname: config.host,
    serverOptions: {
      headersTimeout: config.http.headersTimeoutMs,
      requestTimeout: config.http.requestTimeoutMs,
      keepAliveTimeout: config.http.keepAliveTimeoutMs,
      // How often Node looks for connections over those timeouts (30 s by default): a cut comes at most this late.
      connectionsCheckingInterval: TIMEOUT_CHECK_MS,
    },
  }) as Server;
  let address: AddressInfo;
  try {
    address = await listen(server, config);
  } catch (error) {
    await store.close().catch(() => {});
    throw error;
  }
  if (config.evaluations.embeddedWorker) worker.start();
  deliverer.start();
  sweeper.start();
  const url = publicUrl(config, address);
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    const graceMs = config.shutdownGraceMs;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    logger.info(
      { signal },
      `${signal}: shutting down — no new connections; in-flight requests get up to ${graceMs / 1000} s`,
    );
    void exitAfter(log, graceMs, async (track) => {
      // Keep-alive connections are dropped as soon as they fall idle, not at the end of their keep-alive timeout.
      const idle = setInterval(() => server.closeIdleConnections(), 50);
      server.closeIdleConnections();
      await Promise.all([
        track("requests in flight", closed),
        config.evaluations.embeddedWorker && track("evaluation rows in flight", worker.stop(workGrace(graceMs))),
        track("webhook deliveries in flight", deliverer.stop(workGrace(graceMs))),
        track("the retention batch in progress", sweeper.stop()),
      ]);
      clearInterval(idle);
      try {
        await track("the database close", store.close());
      } catch (error) {
        logger.error({ err: error }, "closing the database failed");
        return false;
      }
      logger.info("Stopped");
      return true;
    });
  };
  // Before the line that says the server is up: whoever reads it may signal at once.
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  logger.info(
    {
      url,
      docsUrl: `${url}/docs`,
      openapiUrl: `${url}/v2/openapi.json`,
      host: config.host,
      port: address.port,
      database: redactDatabaseUrl(config.databaseUrl),
      evaluationWorker: config.evaluations.embeddedWorker ? worker.id : "off",
    },
    `Pharos is listening on ${url} — API reference ${url}/docs — OpenAPI document ${url}/v2/openapi.json`,
  );
}

main().catch(async (error) => {
  if (error instanceof ConfigError || error instanceof StartError) {
    process.stderr.write(`pharos: ${error.message}\n`);
  } else {
    process.stderr.write(`pharos: failed to start: ${describeError(error)}\n${(error as Error)?.stack ?? ""}\n`);
  }
  if (openedLog) {
    await openedLog.flush(LOG_FLUSH_MS);
    openedLog.discard();
  }
  process.exit(1);
});
