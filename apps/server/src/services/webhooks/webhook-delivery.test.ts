/**
 * Webhook delivery end to end, through the public API and real HTTP receivers on loopback: the outbox written
 * with the deployment (or the finished evaluation run), the deliverer's signed POSTs, retries with backoff while
 * the receiver is down, exactly one successful delivery per event and endpoint, the 24-hour retry window,
 * delivery after a restart, two deliverers (replicas) on one database, and the SSRF guard at delivery time.
 * Deliverers run on a clock the test moves, so hours pass at once.
 */
import { lookup } from "node:dns/promises";
import { hostname } from "node:os";
import pino from "pino";
import { afterEach, beforeEach, expect, it } from "vitest";
import { deploy, deployed } from "../../testing/deployment-fixtures.ts";
import { RUNNABLE_DRAFT, setup, startRun } from "../../testing/evaluation-fixtures.ts";
import { startFakeProvider } from "../../testing/fake-provider.ts";
import { describeEachStore } from "../../testing/harness.ts";
import {
  clearWebhooks,
  createWebhook,
  deliveriesOf,
  type Receiver,
  signedWith,
  startReceiver,
  testClock,
} from "../../testing/webhook-fixtures.ts";
import { WebhookDeliverer } from "../../worker/webhook-deliverer.ts";

const HOUR = 60 * 60 * 1000;
const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});
async function receiver() {
  const started = await startReceiver();
  receivers.push(started);
  return started;
}

describeEachStore("webhook delivery", (use) => {
  // Each test starts with no endpoint: those of earlier tests would get its events too.
  beforeEach(() => clearWebhooks(use()));

  it("POSTs a create-deployment event signed with the endpoint's secret, with the custom headers", async () => {
    const h = use();
    const target = await receiver();
    const webhook = await createWebhook(h, { url: target.url, headers: { "X-Receiver-Token": "tok-7" } });
    const clock = testClock(h);
    const deliverer = h.newDeliverer({ now: clock.now });
    const { promptId, environmentId, deploymentId } = await deployed(h);
    expect(await deliverer.deliverDue()).toBe(1);

    expect(target.received).toHaveLength(1);
    const [delivery] = target.received;
    expect(delivery?.headers["content-type"]).toBe("application/json");
    expect(delivery?.headers["x-receiver-token"]).toBe("tok-7");
    expect(delivery?.headers["user-agent"]).toBe("Pharos-Webhooks/2");
    expect(delivery?.json).toEqual({
      type: "create-deployment",
      eventId: expect.stringMatching(/^ev_[0-9A-Z]{26}$/),
      createdAt: expect.any(Number),
      payload: { deploymentId, deploymentEnvironmentId: environmentId, promptId, projectId: h.projectId },
    });
    expect(delivery?.headers["x-webhook-event-id"]).toBe(delivery?.json.eventId);
    const signature = String(delivery?.headers["x-webhook-signature"]);
    expect(signature).toMatch(new RegExp(`^t=${clock.now()}&v1=[0-9a-f]{64}$`));
    expect(signedWith(delivery?.body as string, signature, webhook.secret)).toBe(true);
    expect(signedWith(`${delivery?.body} `, signature, webhook.secret)).toBe(false);

    const [logged] = await deliveriesOf(h, webhook.id);
    expect(logged).toEqual({
      id: expect.stringMatching(/^delivery_/),
      webhookId: webhook.id,
      eventId: delivery?.json.eventId,
      type: "create-deployment",
      status: "succeeded",
      attempts: [{ attemptedAt: clock.now(), durationMs: expect.any(Number), statusCode: 200, error: null }],
      nextAttemptAt: null,
      createdAt: delivery?.json.createdAt,
      updatedAt: clock.now(),
    });
    expect(await deliverer.deliverDue()).toBe(0);
  });

  it("a receiver down for a while gets the event once it is back: retried with backoff, the same eventId, delivered once", async () => {
    const h = use();
    const target = await receiver();
    const webhook = await createWebhook(h, { url: target.url, events: ["create-deployment"] });
    const clock = testClock(h);
    const deliverer = h.newDeliverer({ now: clock.now, random: () => 0.999 });
    await target.down();
    const { promptId, environmentId } = await deployed(h);
    target.status = 500;

    // Refused connections, then 500s: each failure waits about twice as long as the one before.
    const delays: number[] = [];
    for (let attempt = 1; attempt <= 6; attempt++) {
      if (attempt === 4) await target.up();
      expect(await deliverer.deliverDue()).toBe(1);
      const [pending] = await deliveriesOf(h, webhook.id);
      expect(pending.status).toBe("pending");
      expect(pending.attempts).toHaveLength(attempt);
      const last = pending.attempts.at(-1);
      if (attempt < 4) expect(last).toMatchObject({ statusCode: null, error: expect.stringMatching(/ECONNREFUSED/) });
      else expect(last).toMatchObject({ statusCode: 500, error: "The endpoint answered 500." });
      delays.push(pending.nextAttemptAt - clock.now());
      expect(await deliverer.deliverDue()).toBe(0); // not due yet
      clock.set(pending.nextAttemptAt);
    }
    expect(delays).toEqual([10_000, 20_000, 40_000, 80_000, 160_000, 320_000].map((ms) => Math.round(ms * 0.9995)));

    target.status = 200;
    expect(await deliverer.deliverDue()).toBe(1);
    const [delivered] = await deliveriesOf(h, webhook.id);
    expect(delivered).toMatchObject({ status: "succeeded", nextAttemptAt: null });
    expect(delivered.attempts).toHaveLength(7);
    expect(delivered.attempts.at(-1)).toMatchObject({ statusCode: 200, error: null });

    // Three 500s and one 200: the same event, byte for byte, each time, signed at its own time.
    expect(target.received).toHaveLength(4);
    expect(new Set(target.received.map((r) => r.body)).size).toBe(1);
    expect(target.received.map((r) => r.json.eventId)).toEqual(Array(4).fill(delivered.eventId));
    for (const r of target.received)
      expect(signedWith(r.body, r.headers["x-webhook-signature"], webhook.secret)).toBe(true);
    const successes = target.received.slice(-1);
    expect(successes[0]?.json.payload).toMatchObject({ promptId, deploymentEnvironmentId: environmentId });

    // Nothing more, however long one waits.
    clock.advance(48 * HOUR);
    expect(await deliverer.deliverDue()).toBe(0);
    expect(target.received).toHaveLength(4);
  });

  it("retries until 24 hours after the event, then marks the delivery failed", async () => {
    const h = use();
    const target = await receiver();
    target.status = 503;
    const webhook = await createWebhook(h, { url: target.url });
    const clock = testClock(h);
    const deliverer = h.newDeliverer({ now: clock.now });
    await deployed(h);
    let attempts = 0;
    for (;;) {
      const attempted = await deliverer.deliverDue();
      attempts += attempted;
      const [delivery] = await deliveriesOf(h, webhook.id);
      if (delivery.status !== "pending") {
        expect(delivery).toMatchObject({ status: "failed", nextAttemptAt: null });
        expect(delivery.attempts).toHaveLength(attempts);
        expect(delivery.attempts.at(-1).attemptedAt - delivery.createdAt).toBeLessThanOrEqual(24 * HOUR);
        break;
      }
      expect(attempted).toBe(1);
      expect(delivery.nextAttemptAt - delivery.createdAt).toBeLessThanOrEqual(24 * HOUR);
      clock.set(delivery.nextAttemptAt);
    }
    // Backoff capped at an hour (with jitter down to half): from about 10 s up to 24 hours is 20 to 50 attempts.
    expect(attempts).toBeGreaterThanOrEqual(20);
    expect(attempts).toBeLessThanOrEqual(50);
    expect(target.received).toHaveLength(attempts);
    clock.advance(HOUR);
    expect(await deliverer.deliverDue()).toBe(0);
  });

  it("delivers an event to every subscribed endpoint of the project, and to no other", async () => {
    const h = use();
    const [a, b, c] = [await receiver(), await receiver(), await receiver()];
    await createWebhook(h, { url: a.url, events: ["create-deployment"] });
    await createWebhook(h, { url: b.url });
    await createWebhook(h, { url: c.url, events: ["evaluation-run-finished"] });
    const elsewhere = await h.request("POST", "/projects", { body: { title: "Elsewhere" } });
    const d = await receiver();
    await createWebhook(h, { url: d.url }, elsewhere.body.id);
    const deliverer = h.newDeliverer({ now: testClock(h).now });
    await deployed(h);
    expect(await deliverer.deliverDue()).toBe(2);
    expect([a, b, c, d].map((r) => r.received.length)).toEqual([1, 1, 0, 0]);
    expect(a.received[0]?.json.eventId).toBe(b.received[0]?.json.eventId);
  });

  it("writes nothing to the outbox for a deployment that fails, and nothing when no endpoint subscribes", async () => {
    const h = use();
    const events = () =>
      h.store.db.selectFrom("webhookEvents").select("id").where("projectId", "=", h.projectId).execute();
    const before = (await events()).length;
    await createWebhook(h, { url: "https://hooks.example.com/x" });
    const { promptId } = await deployed(h);
    expect((await events()).length).toBe(before + 1);
    const refused = await h.request("POST", `/prompts/${promptId}/deployments`, {
      body: { deploymentEnvironmentId: `env_${"0".repeat(26)}` },
    });
    expect(refused.status).toBe(404);
    expect((await events()).length).toBe(before + 1);
    const quiet = await h.request("POST", "/projects", { body: { title: "Quiet" } });
    const prompt = await h.request("POST", "/prompts", { body: { projectId: quiet.body.id, title: "Q" } });
    const environment = await h.request("POST", `/projects/${quiet.body.id}/deployment-environments`, {
      body: { name: "prod" },
    });
    await deploy(h, prompt.body.id, environment.body.id);
    expect(
      await h.store.db.selectFrom("webhookEvents").select("id").where("projectId", "=", quiet.body.id).execute(),
    ).toEqual([]);
  });

  it("sends evaluation-run-finished when a run completes (at once, or with its last result) or fails, not when it is cancelled", async () => {
    const h = use();
    const project = await h.request("POST", "/projects", { body: { title: "Evaluations" } });
    const projectId = project.body.id as string;
    const target = await receiver();
    await createWebhook(h, { url: target.url, events: ["evaluation-run-finished"] }, projectId);
    const deliverer = h.newDeliverer({ now: testClock(h).now });

    const empty = await setup(h, { rows: 0, projectId });
    const completed = await startRun(h, empty.promptId, { evaluatorId: empty.evaluatorId });
    const missing = await setup(h, {
      projectId,
      draft: { ...RUNNABLE_DRAFT, messages: [{ role: "user", content: [{ modality: "text", value: "{{nowhere}}" }] }] },
    });
    const failed = await startRun(h, missing.promptId, { evaluatorId: missing.evaluatorId });
    // A run with rows: it completes when the worker records its last result (the fake provider answers).
    const fake = await startFakeProvider();
    const provider = await h.request("POST", "/providers", {
      body: { provider: "openai-compatible", displayName: `Fake ${Date.now()}`, baseUrl: `${fake.url}/v1` },
    });
    const rows = await setup(h, {
      rows: 2,
      projectId,
      draft: {
        config: { provider: "openai-compatible", providerId: provider.body.id, model: "fake-model" },
        messages: [{ role: "user", content: [{ modality: "text", value: "{{question}}" }] }],
      },
    });
    const evaluated = await startRun(h, rows.promptId, { evaluatorId: rows.evaluatorId });
    const cancelledSetup = await setup(h, { projectId });
    const cancelled = await startRun(h, cancelledSetup.promptId, { evaluatorId: cancelledSetup.evaluatorId });
    expect(
      (await h.request("POST", `/prompts/${cancelledSetup.promptId}/evaluations/${cancelled.runId}/cancel`)).status,
    ).toBe(200);

    const worker = await h.startWorker();
    try {
      await expect
        .poll(async () => {
          await deliverer.deliverDue();
          return target.received.length;
        })
        .toBe(3);
    } finally {
      await worker.stop(0);
      await fake.close();
    }
    const byRun = Object.fromEntries(target.received.map((r) => [r.json.payload.evaluationId, r.json]));
    expect(byRun[completed.runId]).toMatchObject({
      type: "evaluation-run-finished",
      payload: {
        evaluationId: completed.runId,
        promptId: empty.promptId,
        projectId,
        evaluatorId: empty.evaluatorId,
        datasetId: empty.datasetId,
        status: "completed",
      },
    });
    expect(byRun[failed.runId]?.payload).toMatchObject({ status: "failed", promptId: missing.promptId });
    expect(byRun[evaluated.runId]?.payload).toMatchObject({ status: "completed", promptId: rows.promptId });
    expect(
      (await h.request("GET", `/prompts/${rows.promptId}/evaluations/${evaluated.runId}`)).body.progress,
    ).toMatchObject({
      totalRows: 2,
    });
    expect(byRun[cancelled.runId]).toBeUndefined();
  });

  it("delivers after a restart what was committed before it (the outbox outlives the process)", async () => {
    const h = use();
    const target = await receiver();
    const webhook = await createWebhook(h, { url: target.url, events: ["create-deployment"] });
    // The server commits the deployment and dies before any deliverer runs.
    const { deploymentId } = await deployed(h);
    expect(target.received).toHaveLength(0);
    // A new process: its own connection to the database, the same secret key, a deliverer started as main.ts does.
    const reopened = h.openAnother();
    const deliverer = new WebhookDeliverer({
      store: reopened,
      secrets: h.secrets,
      logger: pino({ level: "silent" }),
      now: Date.now,
      allowPrivateAddresses: true,
      timeoutMs: 2000,
      pollMs: 20,
    });
    deliverer.start();
    try {
      await expect.poll(() => target.received.length).toBe(1);
      expect(target.received[0]?.json.payload.deploymentId).toBe(deploymentId);
      expect(
        signedWith(
          target.received[0]?.body as string,
          target.received[0]?.headers["x-webhook-signature"],
          webhook.secret,
        ),
      ).toBe(true);
      await expect.poll(async () => (await deliveriesOf(h, webhook.id))[0]?.status).toBe("succeeded");
    } finally {
      await deliverer.stop(0);
      await reopened.close();
    }
  });

  it("a delivery whose deliverer died mid-attempt is attempted again once its claim's lease passes", async () => {
    const h = use();
    const target = await receiver();
    const webhook = await createWebhook(h, { url: target.url, events: ["create-deployment"] });
    await deployed(h);
    const clock = testClock(h);
    // A claim, as a deliverer makes it, that is never followed by an attempt (the process died).
    await h.store.db
      .updateTable("webhookDeliveries")
      .set({ nextAttemptAt: clock.now() + 2000 + 60_000 })
      .where("webhookId", "=", webhook.id)
      .execute();
    const deliverer = h.newDeliverer({ now: clock.now });
    expect(await deliverer.deliverDue()).toBe(0);
    clock.advance(2000 + 60_000);
    expect(await deliverer.deliverDue()).toBe(1);
    expect(target.received).toHaveLength(1);
  });

  it("two deliverers on one database (replicas) deliver each event once", async (ctx) => {
    const h = use();
    // Replicas share PostgreSQL; SQLite is served by one process (and better-sqlite3 waits for a lock synchronously).
    if (h.store.dialect === "sqlite") ctx.skip("SQLite is served by one process");
    const target = await receiver();
    const webhook = await createWebhook(h, { url: target.url, events: ["create-deployment"] });
    const { promptId, environmentId } = await deployed(h);
    for (let i = 0; i < 7; i++) await deploy(h, promptId, environmentId);
    const other = h.openAnother();
    const clock = testClock(h);
    const first = h.newDeliverer({ now: clock.now, concurrency: 3 });
    const second = new WebhookDeliverer({
      store: other,
      secrets: h.secrets,
      logger: pino({ level: "silent" }),
      now: clock.now,
      allowPrivateAddresses: true,
      timeoutMs: 2000,
      concurrency: 3,
    });
    try {
      let attempted = 0;
      for (let round = 0; round < 5; round++) {
        const counts = await Promise.all([first.deliverDue(), second.deliverDue()]);
        attempted += counts[0] + counts[1];
      }
      expect(attempted).toBe(8);
      const eventIds = target.received.map((r) => r.json.eventId);
      expect(eventIds).toHaveLength(8);
      expect(new Set(eventIds).size).toBe(8);
      const logged = await deliveriesOf(h, webhook.id);
      expect(logged.map((d) => [d.status, d.attempts.length])).toEqual(Array(8).fill(["succeeded", 1]));
    } finally {
      await other.close();
    }
  });

  it("records a delivery it cannot even send (a secret sealed with another key) as a failed attempt, retried later", async () => {
    const h = use();
    const target = await receiver();
    const webhook = await createWebhook(h, { url: target.url, events: ["create-deployment"] });
    await h.store.db.updateTable("webhooks").set({ secret: "v1.not.a.secret" }).where("id", "=", webhook.id).execute();
    const clock = testClock(h);
    const deliverer = h.newDeliverer({ now: clock.now });
    await deployed(h);
    expect(await deliverer.deliverDue()).toBe(1);
    const [delivery] = await deliveriesOf(h, webhook.id);
    expect(delivery).toMatchObject({ status: "pending", nextAttemptAt: expect.any(Number) });
    expect(delivery.attempts).toEqual([
      {
        attemptedAt: clock.now(),
        durationMs: 0,
        statusCode: null,
        error: expect.stringMatching(/^Pharos could not send it: /),
      },
    ]);
    expect(target.received).toHaveLength(0);
  });

  it("prunes settled deliveries and their events after the retention, never a pending one", async () => {
    const h = use();
    const target = await receiver();
    const webhook = await createWebhook(h, { url: target.url, events: ["create-deployment"] });
    const clock = testClock(h);
    const deliverer = h.newDeliverer({ now: clock.now, retentionMs: 24 * HOUR });
    await deployed(h);
    await deliverer.deliverDue(); // succeeded
    target.status = 500;
    await deployed(h);
    await deliverer.deliverDue(); // pending, retried
    expect(await deliverer.prune()).toBe(0);
    clock.advance(25 * HOUR);
    expect(await deliverer.prune()).toBe(1);
    const left = await deliveriesOf(h, webhook.id);
    expect(left.map((delivery) => delivery.status)).toEqual(["pending"]);
    const events = await h.store.db.selectFrom("webhookEvents").select("id").execute();
    expect(events.map((event) => event.id)).toEqual([left[0].eventId]);
  });

  it("a running deliverer keeps delivering to other endpoints while one endpoint does not answer", async () => {
    const h = use();
    const fast = await receiver();
    const { createServer } = await import("node:http");
    const silent = createServer(() => {}); // accepts, never answers
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      const port = (silent.address() as { port: number }).port;
      await createWebhook(h, { url: `http://127.0.0.1:${port}/silent`, events: ["create-deployment"] });
      await createWebhook(h, { url: fast.url, events: ["create-deployment"] });
      const deliverer = h.newDeliverer({ timeoutMs: 5000 });
      deliverer.start();
      const { promptId, environmentId } = await deployed(h);
      await expect.poll(() => fast.received.length).toBe(1);
      const started = Date.now();
      await deploy(h, promptId, environmentId);
      await expect.poll(() => fast.received.length, { timeout: 2000 }).toBe(2);
      expect(Date.now() - started).toBeLessThan(2000);
      await deliverer.stop(0);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it("does not attempt the pending deliveries of a deleted endpoint", async () => {
    const h = use();
    const target = await receiver();
    const webhook = await createWebhook(h, { url: target.url, events: ["create-deployment"] });
    await deployed(h);
    expect((await h.request("DELETE", `/projects/${h.projectId}/webhooks/${webhook.id}`)).status).toBe(204);
    expect(await h.newDeliverer({ now: testClock(h).now }).deliverDue()).toBe(0);
    expect(target.received).toHaveLength(0);
  });
});

describeEachStore(
  "webhook delivery with private addresses refused",
  (use) => {
    beforeEach(() => clearWebhooks(use()));

    it("fails an attempt to a host name that resolves to a private address (checked after DNS), with the reason", async (ctx) => {
      const h = use();
      const name = hostname();
      const resolved = await lookup(name).catch(() => undefined);
      if (!resolved || !/^127\.|^::1$/.test(resolved.address)) ctx.skip(`${name} does not resolve to loopback here`);
      const target = await receiver();
      const port = new URL(target.url).port;
      const webhook = await createWebhook(h, { url: `http://${name}:${port}/hook` });
      const deliverer = h.newDeliverer({ now: testClock(h).now });
      await deployed(h);
      expect(await deliverer.deliverDue()).toBe(1);
      const [delivery] = await deliveriesOf(h, webhook.id);
      expect(delivery.status).toBe("pending");
      expect(delivery.attempts[0]).toMatchObject({
        statusCode: null,
        error: expect.stringMatching(
          /^Refused: .* resolves to 127\.[0-9.]+ is a loopback, private.*PHAROS_WEBHOOKS_ALLOW_PRIVATE/,
        ),
      });
      expect(target.received).toHaveLength(0);
    });

    it("fails an attempt to a literal private address stored before the operator refused them", async () => {
      const h = use();
      const target = await receiver();
      const webhook = await createWebhook(h, { url: "https://hooks.example.com/x" });
      await h.store.db.updateTable("webhooks").set({ url: target.url }).where("id", "=", webhook.id).execute();
      const deliverer = h.newDeliverer({ now: testClock(h).now });
      await deployed(h);
      await deliverer.deliverDue();
      const [delivery] = await deliveriesOf(h, webhook.id);
      expect(delivery.attempts[0].error).toMatch(/^Refused: 127\.0\.0\.1 is a loopback/);
      expect(target.received).toHaveLength(0);
    });
  },
  { webhooks: { allowPrivateAddresses: false } },
);
