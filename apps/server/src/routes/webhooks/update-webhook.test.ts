import { expect, it } from "vitest";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";
import { createWebhook, webhookPath } from "../../testing/webhook-fixtures.ts";

describeEachStore("updateWebhook", (use) => {
  it("replaces the fields given (headers as a whole), keeps the others and the secret", async () => {
    const h = use();
    const { secret, ...webhook } = await createWebhook(h, { headers: { "X-A": "1", "X-B": "2" } });
    const renamed = await h.request("PATCH", webhookPath(h, webhook.id), {
      body: { name: "Renamed", url: "http://hooks.example.com:8080/v2", headers: { "X-C": "3" } },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({
      ...webhook,
      name: "Renamed",
      url: "http://hooks.example.com:8080/v2",
      headers: { "X-C": "3" },
      updatedAt: expect.any(Number),
    });
    expect(renamed.body.updatedAt).toBeGreaterThan(webhook.updatedAt as number);
    const events = await h.request("PATCH", webhookPath(h, webhook.id), {
      body: { events: ["evaluation-run-finished"] },
    });
    expect(events.body).toMatchObject({
      name: "Renamed",
      events: ["evaluation-run-finished"],
      headers: { "X-C": "3" },
    });
    const cleared = await h.request("PATCH", webhookPath(h, webhook.id), { body: { headers: {} } });
    expect(cleared.body.headers).toEqual({});
    const row = await h.store.db
      .selectFrom("webhooks")
      .select("secret")
      .where("id", "=", webhook.id)
      .executeTakeFirstOrThrow();
    expect(h.secrets.open(row.secret)).toBe(secret);
    expect((await h.request("GET", webhookPath(h, webhook.id))).body).toEqual(cleared.body);
  });

  it("400 VALIDATION_ERROR for an empty update, a bad URL or header, a secret; nothing changes", async () => {
    const h = use();
    const webhook = await createWebhook(h);
    const cases: [Record<string, unknown>, string | undefined][] = [
      [{}, undefined],
      [{ url: "ftp://files.example.com/x" }, "url"],
      [{ url: "https://a:b@hooks.example.com/x" }, "url"],
      [{ name: "" }, "name"],
      [{ events: [] }, "events"],
      [{ headers: { Host: "evil.example.com" } }, "headers.Host"],
      [{ headers: { "X-Bad": "line\nbreak" } }, "headers.X-Bad"],
      [{ secret: "mine" }, undefined],
    ];
    for (const [body, field] of cases) {
      const reply = await h.request("PATCH", webhookPath(h, webhook.id), { body });
      await expectError(reply, 400, "VALIDATION_ERROR");
      if (field) expect(reply.body.error.details[0].field, JSON.stringify(body)).toBe(field);
    }
    const { secret, ...unchanged } = webhook;
    expect((await h.request("GET", webhookPath(h, webhook.id))).body).toEqual(unchanged);
  });
});

describeEachStore(
  "updateWebhook with private addresses refused (the default)",
  (use) => {
    it("400 VALIDATION_ERROR naming url for a loopback or private address", async () => {
      const h = use();
      const webhook = await createWebhook(h);
      for (const url of [
        "http://localhost/x",
        "http://10.1.2.3/x",
        "http://[::1]:8080/x",
        "http://169.254.169.254/latest",
      ]) {
        const reply = await h.request("PATCH", webhookPath(h, webhook.id), { body: { url } });
        await expectError(reply, 400, "VALIDATION_ERROR");
        expect(reply.body.error.details[0].field).toBe("url");
      }
      expect((await h.request("GET", webhookPath(h, webhook.id))).body.url).toBe(webhook.url);
    });
  },
  { webhooks: { allowPrivateAddresses: false } },
);
