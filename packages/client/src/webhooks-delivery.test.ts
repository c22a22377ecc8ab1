/**
 * verifyWebhook against what a real Pharos sends: the server's app on loopback (private addresses allowed, as an
 * operator would for a receiver on the same host), its deliverer, and a receiver on loopback that checks each
 * delivery's raw body and X-Webhook-Signature with verifyWebhook, as an application does.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import {
  adminContext,
  createApiKey,
  createApp,
  createProjectForWorkspace,
  createSecretBox,
  createWorkspace,
  WebhookDeliverer,
} from "@pharos/server";
import { openScratchStore } from "@pharos/server/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createClient, type PharosClient } from "./client.ts";
import { unwrap } from "./errors.ts";
import { verifyWebhook } from "./webhooks.ts";

interface Delivery {
  rawBody: Uint8Array;
  signature: string | undefined;
}

const received: Delivery[] = [];
/** What the receiver answers: 503 while it is "down" (its application not ready), 200 otherwise. */
let receiverStatus = 200;
let receiver: Server;
let receiverUrl: string;
let client: PharosClient;
let projectId: string;
let deliverer: WebhookDeliverer;
let close: () => Promise<void>;

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (receiverStatus === 200) {
        received.push({
          rawBody: new Uint8Array(Buffer.concat(chunks)),
          signature: request.headers["x-webhook-signature"] as string | undefined,
        });
      }
      response.writeHead(receiverStatus).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/pharos`;

  // PostgreSQL too when the server's tests use it.
  const { store, dispose } = await openScratchStore(process.env.PHAROS_TEST_DATABASE_URL);
  await store.migrate();
  const admin = adminContext(store);
  const workspace = await createWorkspace(admin, "Webhook tests");
  projectId = (await createProjectForWorkspace(admin, workspace.id, "Hooks")).id;
  const { key } = await createApiKey(admin, { workspaceId: workspace.id, name: "sdk", role: "full", projectIds: null });
  const secrets = createSecretBox(Buffer.alloc(32, 7));
  const settings = { allowPrivateAddresses: true, timeoutMs: 5000 };
  // Retries within a test's time: 100 ms, 200 ms, then every 200 ms (the default starts at 10 s).
  deliverer = new WebhookDeliverer({
    store,
    secrets,
    now: Date.now,
    pollMs: 20,
    backoff: { baseMs: 100, maxMs: 200 },
    ...settings,
  });
  const app = await createApp({ store, secrets, webhooks: { ...settings, wake: () => deliverer.wake() } });
  deliverer.start();
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  client = createClient({
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`,
    apiKey: key as string,
  });
  close = async () => {
    await deliverer.stop(0);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await dispose();
  };
});

afterAll(async () => {
  await close?.();
  receiver?.closeAllConnections();
  await new Promise<void>((resolve) => receiver?.close(() => resolve()));
});

it("verifies a test event and a create-deployment delivery with the endpoint's secret, and refuses another", async () => {
  const webhook = unwrap(
    await client.POST("/projects/{projectId}/webhooks", {
      params: { path: { projectId } },
      body: { name: "SDK receiver", url: receiverUrl },
    }),
  );
  const test = unwrap(
    await client.POST("/projects/{projectId}/webhooks/{webhookId}/test", {
      params: { path: { projectId, webhookId: webhook.id } },
    }),
  );
  expect(test.status).toBe("succeeded");

  const environment = unwrap(
    await client.POST("/projects/{projectId}/deployment-environments", {
      params: { path: { projectId } },
      body: { name: "Production" },
    }),
  );
  const prompt = unwrap(await client.POST("/prompts", { body: { projectId, title: "Greeting" } }));
  const deployment = unwrap(
    await client.POST("/prompts/{promptId}/deployments", {
      params: { path: { promptId: prompt.id } },
      body: { deploymentEnvironmentId: environment.id },
    }),
  );
  await expect.poll(() => received.length).toBe(2);

  const [testEvent, deployed] = received as [Delivery, Delivery];
  expect(await verifyWebhook(testEvent.rawBody, testEvent.signature, webhook.secret)).toBe(true);
  expect(await verifyWebhook(deployed.rawBody, deployed.signature, webhook.secret)).toBe(true);
  expect(await verifyWebhook(deployed.rawBody, deployed.signature, "whsec_someone-else")).toBe(false);
  const event = JSON.parse(new TextDecoder().decode(deployed.rawBody));
  expect(event).toMatchObject({
    type: "create-deployment",
    payload: { deploymentId: deployment.id, deploymentEnvironmentId: environment.id, promptId: prompt.id, projectId },
  });
  expect(event.eventId).toMatch(/^ev_/);
});

it("verifies with the old and the new secret while both sign after a rotation", async () => {
  const webhook = unwrap(
    await client.POST("/projects/{projectId}/webhooks", {
      params: { path: { projectId } },
      body: { name: "Rotated receiver", url: receiverUrl, events: ["create-deployment"] },
    }),
  );
  const rotated = unwrap(
    await client.POST("/projects/{projectId}/webhooks/{webhookId}/rotate-secret", {
      params: { path: { projectId, webhookId: webhook.id } },
    }),
  );
  const before = received.length;
  unwrap(
    await client.POST("/projects/{projectId}/webhooks/{webhookId}/test", {
      params: { path: { projectId, webhookId: webhook.id } },
    }),
  );
  const delivery = received[before] as Delivery;
  expect(await verifyWebhook(delivery.rawBody, delivery.signature, webhook.secret)).toBe(true);
  expect(await verifyWebhook(delivery.rawBody, delivery.signature, rotated.secret)).toBe(true);
  expect(await verifyWebhook(delivery.rawBody, delivery.signature, [rotated.secret, webhook.secret])).toBe(true);
});

it("a receiver down for a while gets each event once it is back, once per eventId, and verifies it", async () => {
  // A project of its own: the endpoints of the tests above would get its deployments too.
  const projectId = unwrap(await client.POST("/projects", { body: { title: "Flaky" } })).id;
  const webhook = unwrap(
    await client.POST("/projects/{projectId}/webhooks", {
      params: { path: { projectId } },
      body: { name: "Flaky receiver", url: receiverUrl, events: ["create-deployment"] },
    }),
  );
  const environment = unwrap(
    await client.POST("/projects/{projectId}/deployment-environments", {
      params: { path: { projectId } },
      body: { name: "Staging" },
    }),
  );
  const prompt = unwrap(await client.POST("/prompts", { body: { projectId, title: "Flaky" } }));
  receiverStatus = 503;
  const before = received.length;
  const deployments = [];
  for (let i = 0; i < 3; i++) {
    deployments.push(
      unwrap(
        await client.POST("/prompts/{promptId}/deployments", {
          params: { path: { promptId: prompt.id } },
          body: { deploymentEnvironmentId: environment.id },
        }),
      ).id,
    );
  }
  // Refused for a while: every delivery is attempted, and retried.
  const log = () =>
    client.GET("/projects/{projectId}/webhooks/{webhookId}/deliveries", {
      params: { path: { projectId, webhookId: webhook.id } },
    });
  await expect
    .poll(async () => unwrap(await log()).deliveries.every((delivery) => delivery.attempts.length >= 2))
    .toBe(true);
  receiverStatus = 200;
  await expect.poll(async () => unwrap(await log()).deliveries.every((d) => d.status === "succeeded")).toBe(true);

  const mine = received.slice(before);
  const events = [];
  for (const delivery of mine) {
    expect(await verifyWebhook(delivery.rawBody, delivery.signature, webhook.secret)).toBe(true);
    events.push(JSON.parse(new TextDecoder().decode(delivery.rawBody)));
  }
  expect(events.map((event) => event.payload.deploymentId).sort()).toEqual([...deployments].sort());
  expect(new Set(events.map((event) => event.eventId)).size).toBe(3);
});
