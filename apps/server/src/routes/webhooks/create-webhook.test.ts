import { expect, it } from "vitest";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";
import { newProject } from "../../testing/prompt-fixtures.ts";
import { createWebhook } from "../../testing/webhook-fixtures.ts";

describeEachStore("createWebhook", (use) => {
  it("creates an endpoint (201) with a generated secret, returned this once and sealed in the database", async () => {
    const h = use();
    const created = await h.request("POST", `/projects/${h.projectId}/webhooks`, {
      body: {
        name: "Cache refresh",
        url: "https://hooks.example.com/pharos?team=a",
        events: ["create-deployment"],
        headers: { "X-Receiver-Token": "tok-1" },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^webhook_[0-9A-Z]{26}$/),
      projectId: h.projectId,
      name: "Cache refresh",
      url: "https://hooks.example.com/pharos?team=a",
      events: ["create-deployment"],
      headers: { "X-Receiver-Token": "tok-1" },
      previousSecretExpiresAt: null,
      createdAt: expect.any(Number),
      updatedAt: created.body.createdAt,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
    });
    const row = await h.store.db
      .selectFrom("webhooks")
      .selectAll()
      .where("id", "=", created.body.id)
      .executeTakeFirstOrThrow();
    expect(row.secret).not.toContain(created.body.secret.slice(6));
    expect(h.secrets.open(row.secret)).toBe(created.body.secret);
    const read = await h.request("GET", `/projects/${h.projectId}/webhooks/${created.body.id}`);
    expect(read.body).toEqual({ ...created.body, secret: undefined });
    expect(JSON.stringify(read.body)).not.toContain(created.body.secret);
  });

  it("subscribes to every event by default, each listed once, and gives each endpoint its own secret", async () => {
    const h = use();
    const all = await createWebhook(h);
    expect(all.events).toEqual(["create-deployment", "evaluation-run-finished"]);
    expect(all.headers).toEqual({});
    const twice = await createWebhook(h, { events: ["evaluation-run-finished", "evaluation-run-finished"] });
    expect(twice.events).toEqual(["evaluation-run-finished"]);
    expect(twice.secret).not.toBe(all.secret);
  });

  it("accepts loopback endpoints when the operator allows private addresses (as this harness does)", async () => {
    const h = use();
    expect((await createWebhook(h, { url: "http://127.0.0.1:9/hook" })).url).toBe("http://127.0.0.1:9/hook");
    expect((await createWebhook(h, { url: "http://localhost:9/hook" })).url).toBe("http://localhost:9/hook");
  });

  it("400 VALIDATION_ERROR naming url for a URL that is not http(s) or holds credentials", async () => {
    const h = use();
    for (const url of [
      "ftp://files.example.com/hook",
      "mailto:ops@example.com",
      "file:///etc/passwd",
      "https://user:pass@hooks.example.com/x",
      "not a url",
      `https://hooks.example.com/${"x".repeat(2048)}`,
    ]) {
      const reply = await h.request("POST", `/projects/${h.projectId}/webhooks`, { body: { name: "n", url } });
      await expectError(reply, 400, "VALIDATION_ERROR");
      expect(reply.body.error.details[0].field, url).toBe("url");
    }
  });

  it("400 VALIDATION_ERROR for a bad name, events or custom headers, naming the field", async () => {
    const h = use();
    const url = "https://hooks.example.com/x";
    const cases: [Record<string, unknown>, string][] = [
      [{ name: "" }, "name"],
      [{ name: "x".repeat(101) }, "name"],
      [{ events: [] }, "events"],
      [{ events: ["prompt-deleted"] }, "events.0"],
      [{ headers: { "Bad Name": "v" } }, "headers"],
      [{ headers: { "X-Long": "v".repeat(4097) } }, "headers.X-Long"],
      [{ headers: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-H${i}`, "v"])) }, "headers"],
      [{ headers: { "X-Emoji": "🚀" } }, "headers.X-Emoji"],
      [{ headers: { "X-Split": "a\r\nInjected: yes" } }, "headers.X-Split"],
      [{ headers: { "content-type": "text/plain" } }, "headers.content-type"],
      [{ headers: { "X-Webhook-Signature": "t=1&v1=00" } }, "headers.X-Webhook-Signature"],
      [{ secret: "mine" }, ""],
    ];
    for (const [change, field] of cases) {
      const reply = await h.request("POST", `/projects/${h.projectId}/webhooks`, {
        body: { name: "n", url, ...change },
      });
      await expectError(reply, 400, "VALIDATION_ERROR");
      if (field) expect(reply.body.error.details[0].field, JSON.stringify(change)).toBe(field);
    }
    expect(await h.store.db.selectFrom("webhooks").select("id").where("name", "=", "n").execute()).toEqual([]);
  });

  it("404 for a project of another workspace; a project of the workspace gets its own endpoints", async () => {
    const h = use();
    const other = await h.otherWorkspace();
    const reply = await h.request("POST", `/projects/${other.projectId}/webhooks`, {
      body: { name: "n", url: "https://hooks.example.com/x" },
    });
    await expectError(reply, 404, "RESOURCE_NOT_FOUND");
    const projectId = await newProject(h);
    expect((await createWebhook(h, {}, projectId)).projectId).toBe(projectId);
  });
});

describeEachStore(
  "createWebhook with private addresses refused (the default)",
  (use) => {
    it("400 VALIDATION_ERROR naming url for localhost and literal loopback, private, link-local, CGNAT and IPv6 local addresses", async () => {
      const h = use();
      for (const host of [
        "localhost",
        "LOCALHOST.",
        "api.localhost",
        "127.0.0.1",
        "127.1.2.3",
        "0.0.0.0",
        "10.0.0.8",
        "172.16.0.1",
        "172.31.255.255",
        "192.168.1.10",
        "169.254.169.254",
        "100.64.0.1",
        "[::1]",
        "[::]",
        "[fc00::1]",
        "[fd12:3456::1]",
        "[fe80::1]",
        "[::ffff:127.0.0.1]",
        "[::ffff:10.0.0.1]",
        "[::127.0.0.1]",
        "[64:ff9b::10.0.0.1]",
        "2130706433", // 127.0.0.1 as one number, which the URL parser normalizes
        "0x7f.1",
      ]) {
        const url = `http://${host}:8080/hook`;
        const reply = await h.request("POST", `/projects/${h.projectId}/webhooks`, { body: { name: "n", url } });
        await expectError(reply, 400, "VALIDATION_ERROR");
        expect(reply.body.error.details[0], url).toMatchObject({
          field: "url",
          issue: expect.stringMatching(/private/),
        });
      }
    });

    it("accepts public addresses and host names (names are checked again after resolution, at delivery)", async () => {
      const h = use();
      for (const url of [
        "https://hooks.example.com/x",
        "http://93.184.215.14/x",
        "http://172.32.0.1/x",
        "http://[2606:4700::1111]/x",
      ]) {
        expect((await createWebhook(h, { url })).url).toBe(url);
      }
    });
  },
  { webhooks: { allowPrivateAddresses: false } },
);
