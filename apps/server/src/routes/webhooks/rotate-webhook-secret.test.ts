import { afterEach, expect, it } from "vitest";
import { deployed } from "../../testing/deployment-fixtures.ts";
import { describeEachStore } from "../../testing/harness.ts";
import {
  clearWebhooks,
  createWebhook,
  type Receiver,
  signedWith,
  startReceiver,
  testClock,
  webhookPath,
} from "../../testing/webhook-fixtures.ts";

const HOUR = 60 * 60 * 1000;
let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
});

describeEachStore("rotateWebhookSecret", (use) => {
  it("returns a new secret; the old one also signs for 12 hours, then only the new one", async () => {
    const h = use();
    await clearWebhooks(h);
    receiver = await startReceiver();
    const webhook = await createWebhook(h, { url: receiver.url, events: ["create-deployment"] });
    const rotated = await h.request("POST", webhookPath(h, webhook.id, "/rotate-secret"));
    expect(rotated.status).toBe(200);
    const { secret: _, ...before } = webhook;
    expect(rotated.body).toEqual({
      ...before,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
      previousSecretExpiresAt: rotated.body.updatedAt + 12 * HOUR,
      updatedAt: expect.any(Number),
    });
    expect(rotated.body.secret).not.toBe(webhook.secret);
    expect((await h.request("GET", webhookPath(h, webhook.id))).body.previousSecretExpiresAt).toBe(
      rotated.body.previousSecretExpiresAt,
    );

    // Within the 12 hours: two signatures, the new one first; either secret verifies.
    const clock = testClock(h);
    const deliverer = h.newDeliverer({ now: clock.now });
    clock.set(rotated.body.updatedAt + 11 * HOUR);
    await deployed(h);
    expect(await deliverer.deliverDue()).toBe(1);
    const during = receiver.received[0];
    expect(String(during?.headers["x-webhook-signature"])).toMatch(/^t=\d+&v1=[0-9a-f]{64},[0-9a-f]{64}$/);
    expect(signedWith(during?.body as string, during?.headers["x-webhook-signature"], rotated.body.secret)).toBe(true);
    expect(signedWith(during?.body as string, during?.headers["x-webhook-signature"], webhook.secret)).toBe(true);

    // After them: the new secret alone.
    clock.set(rotated.body.previousSecretExpiresAt + 1);
    await deployed(h);
    expect(await deliverer.deliverDue()).toBe(1);
    const after = receiver.received[1];
    expect(String(after?.headers["x-webhook-signature"])).toMatch(/^t=\d+&v1=[0-9a-f]{64}$/);
    expect(signedWith(after?.body as string, after?.headers["x-webhook-signature"], rotated.body.secret)).toBe(true);
    expect(signedWith(after?.body as string, after?.headers["x-webhook-signature"], webhook.secret)).toBe(false);
  });

  it("a second rotation within the 12 hours retires the oldest secret at once", async () => {
    const h = use();
    await clearWebhooks(h);
    receiver = await startReceiver();
    const webhook = await createWebhook(h, { url: receiver.url, events: ["create-deployment"] });
    const second = (await h.request("POST", webhookPath(h, webhook.id, "/rotate-secret"))).body;
    const third = (await h.request("POST", webhookPath(h, webhook.id, "/rotate-secret"))).body;
    expect(third.previousSecretExpiresAt).toBe(third.updatedAt + 12 * HOUR);
    const deliverer = h.newDeliverer({ now: testClock(h).now });
    await deployed(h);
    await deliverer.deliverDue();
    const [delivery] = receiver.received;
    const header = delivery?.headers["x-webhook-signature"];
    expect(signedWith(delivery?.body as string, header, third.secret)).toBe(true);
    expect(signedWith(delivery?.body as string, header, second.secret)).toBe(true);
    expect(signedWith(delivery?.body as string, header, webhook.secret)).toBe(false);
  });
});
