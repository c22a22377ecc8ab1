/**
 * `pnpm pharos worker`: a process without HTTP that executes evaluation runs, delivers webhooks (ADR 0011) and
 * sweeps expired logs (ADR 0019), beside servers started with PHAROS_WORKER=off (or as well as their embedded
 * loops). The servers keep their own deliverer and sweeper: both claim their rows with `FOR UPDATE SKIP LOCKED`,
 * so any number of processes share the work, and a deployment of workers only still delivers and expires. Run
 * any number of them against one PostgreSQL database; SQLite has the server's embedded loops instead.
 * SIGTERM/SIGINT: stop claiming, finish or give back the rows and deliveries in flight, finish the retention
 * batch in progress and exit 0, within the grace period (PHAROS_SHUTDOWN_GRACE_MS); past it, exit EXIT_UNCLEAN
 * whatever is still pending (shutdown.ts).
 */
import { parseArgs } from "node:util";
import { ConfigError, describeError, loadServerConfig, REPO_ROOT, redactDatabaseUrl } from "../config.ts";
import { createIdGenerator } from "../ids.ts";
import { createSecretBox, verifySecretKey } from "../secrets/secret-box.ts";
import { configuredSecretKey } from "../secrets/secret-key.ts";
import { exitAfter, processLog, workGrace } from "../shutdown.ts";
import { openStore } from "../store/open-store.ts";
import { EvaluationWorker } from "./evaluation-worker.ts";
import { RetentionSweeper } from "./retention-sweeper.ts";
import { WebhookDeliverer } from "./webhook-deliverer.ts";

export const WORKER_USAGE = `Usage: pharos worker [--concurrency <n>]
  Execute evaluation runs, deliver webhooks and delete expired logs (projects' retentionDays) in the
  PostgreSQL database DATABASE_URL names, until SIGTERM or SIGINT.
  --concurrency <n>   rows evaluated at once (default PHAROS_EVALUATION_CONCURRENCY, else 5)
  Needs PHAROS_SECRET_KEY (the servers' key); reads PHAROS_PROVIDER_TIMEOUT_MS, PHAROS_PROVIDER_MAX_RETRIES,
  PHAROS_WEBHOOK_TIMEOUT_MS, PHAROS_WEBHOOKS_ALLOW_PRIVATE, LOG_LEVEL.
`;

interface Io {
  env: Record<string, string | undefined>;
  stdout(text: string): void;
  stderr(text: string): void;
}

/**
 * Runs until a stop signal and then ends the process (exit code 0, or EXIT_UNCLEAN); returns an exit code only
 * when the worker does not start (2 bad arguments, 1 cannot start).
 */
export async function runWorkerCommand(args: readonly string[], io: Io): Promise<number> {
  let concurrencyText: string | undefined;
  try {
    const { values } = parseArgs({
      args: args as string[],
      options: { concurrency: { type: "string" }, help: { type: "boolean", short: "h" } },
      strict: true,
    });
    if (values.help) {
      io.stdout(WORKER_USAGE);
      return 0;
    }
    concurrencyText = values.concurrency;
  } catch (error) {
    io.stderr(`pharos worker: ${(error as Error).message}\n${WORKER_USAGE}`);
    return 2;
  }

  let config: ReturnType<typeof loadServerConfig>;
  try {
    config = loadServerConfig(
      concurrencyText === undefined ? io.env : { ...io.env, PHAROS_EVALUATION_CONCURRENCY: concurrencyText },
    );
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.stderr(`pharos worker: ${error.message.replace("PHAROS_EVALUATION_CONCURRENCY", "--concurrency")}\n`);
    return concurrencyText !== undefined && error.message.includes("PHAROS_EVALUATION_CONCURRENCY") ? 2 : 1;
  }
  if (!config.databaseUrl.startsWith("postgres")) {
    io.stderr(
      "pharos worker: standalone workers need PostgreSQL (DATABASE_URL=postgres://…); with SQLite the server's embedded worker runs evaluations.\n",
    );
    return 1;
  }

  const log = processLog(config.logLevel);
  const { logger } = log;
  const store = openStore(config.databaseUrl);
  let worker: EvaluationWorker;
  let deliverer: WebhookDeliverer;
  let sweeper: RetentionSweeper;
  try {
    await store.migrate();
    const secrets = createSecretBox(configuredSecretKey(config, `${REPO_ROOT}/data`));
    await verifySecretKey(store.db, secrets);
    worker = new EvaluationWorker({
      store,
      secrets,
      logger,
      now: Date.now,
      newId: createIdGenerator(Date.now),
      ...config.evaluations,
      // Outbound calls of `api` dataset columns follow the webhook settings (private addresses, timeout).
      api: config.webhooks,
    });
    deliverer = new WebhookDeliverer({ store, secrets, logger, now: Date.now, ...config.webhooks });
    sweeper = new RetentionSweeper({ store, logger, now: Date.now });
  } catch (error) {
    await store.close().catch(() => {});
    io.stderr(`pharos worker: cannot start on ${redactDatabaseUrl(config.databaseUrl)}: ${describeError(error)}\n`);
    return 1;
  }
  // Listened for before the line that says the worker runs: whoever reads it may signal at once.
  const stopSignal = new Promise<NodeJS.Signals>((resolve) => {
    process.once("SIGTERM", () => resolve("SIGTERM"));
    process.once("SIGINT", () => resolve("SIGINT"));
  });
  worker.start();
  deliverer.start();
  sweeper.start();
  logger.info(
    {
      workerId: worker.id,
      delivererId: deliverer.id,
      concurrency: config.evaluations.concurrency,
      database: redactDatabaseUrl(config.databaseUrl),
    },
    `Pharos worker ${worker.id} is executing evaluation runs, delivering webhooks and deleting expired logs`,
  );
  const signal = await stopSignal;
  logger.info({ signal }, `${signal}: stopping — no new rows or deliveries; those in flight finish or are given back`);
  const graceMs = config.shutdownGraceMs;
  return exitAfter(log, graceMs, async (track) => {
    await Promise.all([
      track("evaluation rows in flight", worker.stop(workGrace(graceMs))),
      track("webhook deliveries in flight", deliverer.stop(workGrace(graceMs))),
      track("the retention batch in progress", sweeper.stop()),
    ]);
    try {
      await track("the database close", store.close());
    } catch (error) {
      logger.error({ err: error }, "closing the database failed");
      return false;
    }
    logger.info(
      { recordedRows: worker.recordedRows, attemptedDeliveries: deliverer.attempted },
      `Stopped after recording ${worker.recordedRows} rows and attempting ${deliverer.attempted} deliveries`,
    );
    return true;
  });
}
