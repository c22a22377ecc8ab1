/**
 * The standalone worker (`pharos worker`) does the background work of a server that is not running: it delivers
 * a webhook event a server left pending and deletes the logs a project's retention expired. A real server
 * process writes the data and stops; a real worker process then runs alone on the same PostgreSQL database
 * (standalone workers need PostgreSQL), and a real HTTP receiver on loopback takes the delivery.
 */
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { issueKey } from "../auth/api-keys.ts";
import { createIdGenerator } from "../ids.ts";
import { DAY_MS } from "../services/retention/delete-expired-logs.ts";
import { postgresUrl } from "../testing/harness.ts";
import {
  freshPostgresSchema,
  processApi,
  type ServerProcess,
  startServer,
  startWorkerProcess,
} from "../testing/processes.ts";
import { type Receiver, startReceiver } from "../testing/webhook-fixtures.ts";

const running = new Set<ServerProcess>();
afterAll(async () => {
  await Promise.all([...running].map((process) => process.stop("SIGKILL").catch(() => {})));
});

function track(process: ServerProcess): ServerProcess {
  running.add(process);
  process.exited.then(() => running.delete(process));
  return process;
}

async function until<T>(read: () => Promise<T> | T, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`not there in time: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The names of the project's stored traces, read from the database itself (no server runs meanwhile). */
async function storedTraceNames(url: string, projectId: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      `select "name" from "logTraces" where "projectId" = $1 order by "name"`,
      [projectId],
    );
    return rows.map((row) => row.name);
  } finally {
    await client.end();
  }
}

describe.runIf(postgresUrl)("the standalone worker's webhooks and retention [postgres]", () => {
  let receiver: Receiver | undefined;
  afterAll(async () => {
    await receiver?.close();
  });

  it("delivers the event a stopped server left pending and deletes the expired traces, then stops cleanly", async () => {
    const database = await freshPostgresSchema(postgresUrl as string);
    try {
      receiver = await startReceiver();
      const key = issueKey(createIdGenerator(Date.now)("apiKey")).key;
      const env = {
        DATABASE_URL: database.url,
        PHAROS_WEBHOOKS_ALLOW_PRIVATE: "true",
        PHAROS_WEBHOOK_TIMEOUT_MS: "2000",
      };
      const server = track(startServer({ ...env, PHAROS_BOOTSTRAP_API_KEY: key, PHAROS_WORKER: "off" }));
      const call = processApi(await server.ready(), key);
      const { projects } = await call("GET", "/projects");
      const projectId = projects[0].id as string;

      // The server's sweeper made its first pass at start and waits a minute for the next: these traces, one
      // expired and one recent, outlive it.
      await call("PATCH", `/projects/${projectId}`, { retentionDays: 1 });
      const now = Date.now();
      for (const [name, startedAt] of [
        ["expired", now - 3 * DAY_MS],
        ["recent", now - 60_000],
      ] as const) {
        await call("POST", "/logs/trace", {
          projectId,
          trace: { name, status: "success", startedAt, endedAt: startedAt + 1000 },
        });
      }

      // The receiver is down: the server's attempt fails and the delivery waits for its backoff (5–10 s).
      const webhook = await call("POST", `/projects/${projectId}/webhooks`, { name: "Cache", url: receiver.url });
      const environment = await call("POST", `/projects/${projectId}/deployment-environments`, { name: "prod" });
      const prompt = await call("POST", "/prompts", { projectId, title: "Greeting" });
      await receiver.down();
      const deployment = await call("POST", `/prompts/${prompt.id}/deployments`, {
        deploymentEnvironmentId: environment.id,
      });
      const deliveriesPath = `/projects/${projectId}/webhooks/${webhook.id}/deliveries`;
      await until(
        () => call("GET", deliveriesPath),
        (page) => page.deliveries[0]?.attempts.length === 1,
      );
      expect(await server.stop("SIGTERM")).toEqual({ code: 0, signal: null });
      await receiver.up();
      expect(await storedTraceNames(database.url, projectId)).toEqual(["expired", "recent"]);

      // The worker alone: its deliverer takes the pending delivery once due, its sweeper the expired trace.
      const worker = track(startWorkerProcess(env));
      await worker.ready();
      await until(
        () => receiver?.received.length ?? 0,
        (count) => count === 1,
      );
      expect(receiver.received[0]?.json.payload.deploymentId).toBe(deployment.id);
      await until(
        () => storedTraceNames(database.url, projectId),
        (names) => names.length === 1,
      );
      expect(await storedTraceNames(database.url, projectId)).toEqual(["recent"]);

      expect(await worker.stop("SIGTERM")).toEqual({ code: 0, signal: null });
      expect(receiver.received).toHaveLength(1);
    } finally {
      await database.dispose();
    }
  }, 90_000);
});
