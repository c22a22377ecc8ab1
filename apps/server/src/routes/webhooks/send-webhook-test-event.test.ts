import { afterEach, expect, it } from "vitest";
import { describeEachStore } from "../../testing/harness.ts";
import {
  createWebhook,
  deliveriesOf,
  type Receiver,
  signedWith,
  startReceiver,
  webhookPath,
} from "../../testing/webhook-fixtures.ts";

let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
});

describeEachStore("sendWebhookTestEvent", (use) => {
  it("POSTs a signed test event now and answers 200 with the succeeded delivery, which the log lists", async () => {
    const h = use();
    receiver = await startReceiver();
    const webhook = await createWebhook(h, { url: receiver.url, headers: { "X-Token": "t1" } });
    const sent = await h.request("POST", webhookPath(h, webhook.id, "/test"));
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({
      id: expect.stringMatching(/^delivery_/),
      webhookId: webhook.id,
      eventId: expect.stringMatching(/^ev_/),
      type: "test",
      status: "succeeded",
      attempts: [{ attemptedAt: expect.any(Number), durationMs: expect.any(Number), statusCode: 200, error: null }],
      nextAttemptAt: null,
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });
    expect(receiver.received).toHaveLength(1);
    const [event] = receiver.received;
    expect(event?.json).toEqual({
      type: "test",
      eventId: sent.body.eventId,
      createdAt: sent.body.createdAt,
      payload: { webhookId: webhook.id, projectId: h.projectId },
    });
    expect(event?.headers["x-token"]).toBe("t1");
    expect(signedWith(event?.body as string, event?.headers["x-webhook-signature"], webhook.secret)).toBe(true);
    expect(await deliveriesOf(h, webhook.id)).toEqual([sent.body]);
  });

  it("answers 200 with a failed delivery, never retried, when the endpoint answers non-2xx or cannot be reached", async () => {
    const h = use();
    receiver = await startReceiver();
    receiver.status = 404;
    const webhook = await createWebhook(h, { url: receiver.url });
    const answered = await h.request("POST", webhookPath(h, webhook.id, "/test"));
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ status: "failed", nextAttemptAt: null });
    expect(answered.body.attempts).toEqual([
      expect.objectContaining({ statusCode: 404, error: "The endpoint answered 404." }),
    ]);
    await receiver.down();
    const refused = await h.request("POST", webhookPath(h, webhook.id, "/test"));
    expect(refused.body).toMatchObject({ status: "failed" });
    expect(refused.body.attempts[0]).toMatchObject({ statusCode: null, error: expect.stringMatching(/ECONNREFUSED/) });
    const deliverer = h.newDeliverer();
    expect(await deliverer.deliverDue()).toBe(0);
    expect(receiver.received).toHaveLength(1);
  });
});

describeEachStore(
  "sendWebhookTestEvent with a slow endpoint",
  (use) => {
    it("fails the attempt after the timeout", async () => {
      const h = use();
      const { createServer } = await import("node:http");
      const silent = createServer(() => {}); // never answers
      await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
      try {
        const port = (silent.address() as { port: number }).port;
        const webhook = await createWebhook(h, { url: `http://127.0.0.1:${port}/slow` });
        const sent = await h.request("POST", webhookPath(h, webhook.id, "/test"));
        expect(sent.status).toBe(200);
        expect(sent.body.attempts[0]).toMatchObject({ statusCode: null, error: "No answer within 0.3 s." });
        expect(sent.body.attempts[0].durationMs).toBeGreaterThanOrEqual(250);
      } finally {
        silent.closeAllConnections();
        silent.close();
      }
    });

    it("succeeds on a 2xx status, without waiting for an answer's body that never ends", async () => {
      const h = use();
      const { createServer } = await import("node:http");
      const trickling = createServer((_, response) => {
        response.writeHead(200, { "Content-Type": "text/plain" });
        response.write("still going");
      });
      await new Promise<void>((resolve) => trickling.listen(0, "127.0.0.1", resolve));
      try {
        const port = (trickling.address() as { port: number }).port;
        const webhook = await createWebhook(h, { url: `http://127.0.0.1:${port}/trickle` });
        const sent = await h.request("POST", webhookPath(h, webhook.id, "/test"));
        expect(sent.body).toMatchObject({ status: "succeeded" });
        expect(sent.body.attempts[0]).toMatchObject({ statusCode: 200, error: null });
      } finally {
        trickling.closeAllConnections();
        trickling.close();
      }
    });
  },
  { webhooks: { timeoutMs: 300 } },
);
