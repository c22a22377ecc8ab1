/**
 * Webhooks across real server processes (src/main.ts): the server's deliverer sends a deployment's event at once;
 * an event whose attempt failed survives a SIGKILL and is delivered, once, by the restarted server; a SIGTERM
 * stops the deliverer cleanly (exit 0). The receiver is a real HTTP server on loopback.
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { issueKey } from "../auth/api-keys.ts";
import { createIdGenerator } from "../ids.ts";
import { postgresUrl } from "../testing/harness.ts";
import {
  freshPostgresSchema,
  processApi,
  type ServerProcess,
  startServer,
  tempDatabaseDir,
} from "../testing/processes.ts";
import { type Receiver, signedWith, startReceiver } from "../testing/webhook-fixtures.ts";

const files = tempDatabaseDir();
const running = new Set<ServerProcess>();
let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
});
afterAll(async () => {
  await Promise.all([...running].map((process) => process.stop("SIGKILL").catch(() => {})));
  files.dispose();
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
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const targets = [
  ["sqlite", async () => ({ url: files.url(`webhooks-${Date.now()}.db`), dispose: async () => {} })] as const,
  ...(postgresUrl ? [["postgres", () => freshPostgresSchema(postgresUrl as string)] as const] : []),
];

describe.each(targets)("webhooks across processes [%s]", (_, open) => {
  it("delivers at once, survives a SIGKILL between attempts, delivers each event once, stops cleanly", async () => {
    const database = await open();
    try {
      receiver = await startReceiver();
      const key = issueKey(createIdGenerator(Date.now)("apiKey")).key;
      const env = {
        DATABASE_URL: database.url,
        PHAROS_BOOTSTRAP_API_KEY: key,
        PHAROS_WEBHOOKS_ALLOW_PRIVATE: "true",
        PHAROS_WEBHOOK_TIMEOUT_MS: "2000",
      };
      const first = track(startServer(env));
      const call = processApi(await first.ready(), key);
      const { projects } = await call("GET", "/projects");
      const projectId = projects[0].id as string;
      const webhook = await call("POST", `/projects/${projectId}/webhooks`, { name: "Cache", url: receiver.url });
      const environment = await call("POST", `/projects/${projectId}/deployment-environments`, { name: "prod" });
      const prompt = await call("POST", "/prompts", { projectId, title: "Greeting" });
      const deploy = () =>
        call("POST", `/prompts/${prompt.id}/deployments`, { deploymentEnvironmentId: environment.id });

      // The server's deliverer is woken by the commit: no poll interval to wait for.
      const started = Date.now();
      const firstDeployment = await deploy();
      await until(
        () => receiver?.received.length ?? 0,
        (count) => count === 1,
      );
      expect(Date.now() - started).toBeLessThan(1000);
      expect(receiver.received[0]?.json.payload.deploymentId).toBe(firstDeployment.id);

      // Receiver down: the attempt fails and waits its backoff (5–10 s); the server dies meanwhile.
      await receiver.down();
      const secondDeployment = await deploy();
      const deliveriesPath = `/projects/${projectId}/webhooks/${webhook.id}/deliveries?sort=createdAt:asc`;
      await until(
        () => call("GET", deliveriesPath),
        (page) => page.deliveries[1]?.attempts.length === 1,
      );
      await first.stop("SIGKILL");
      await receiver.up();

      const second = track(startServer(env));
      const again = processApi(await second.ready(), key);
      await until(
        () => receiver?.received.length ?? 0,
        (count) => count === 2,
      );
      const delivered = receiver.received[1];
      expect(delivered?.json.payload.deploymentId).toBe(secondDeployment.id);
      expect(signedWith(delivered?.body as string, delivered?.headers["x-webhook-signature"], webhook.secret)).toBe(
        true,
      );
      const log = await until(
        () => again("GET", deliveriesPath),
        (page) => page.deliveries.every((delivery: any) => delivery.status === "succeeded"),
      );
      expect(log.deliveries.map((delivery: any) => delivery.attempts.length)).toEqual([1, 2]);
      expect(new Set(receiver.received.map((r) => r.json.eventId)).size).toBe(2);

      expect(await second.stop("SIGTERM")).toEqual({ code: 0, signal: null });
      expect(receiver.received).toHaveLength(2);
    } finally {
      await database.dispose();
    }
  }, 90_000);
});
