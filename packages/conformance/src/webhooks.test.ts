/**
 * Webhook endpoints through the client, every response validated against the spec. The endpoints point at a
 * host under `.invalid` (RFC 2606: never resolves), so a test event fails fast wherever the kit runs; deliveries
 * to real receivers are the server's tests (services/webhooks/webhook-delivery.test.ts) and the SDK's.
 */
import { type PharosClient, paginate, unwrap } from "@pharos/client";
import { beforeAll, describe, expect, it } from "vitest";
import { errorMatrixOf, itProvokedEveryDocumentedStatus, type Send } from "./cases.ts";
import { newProject, runTag, type Schemas } from "./fixtures.ts";
import { expectError, expectStatus } from "./replies.ts";
import { useTarget } from "./target.ts";

const use = useTarget();
const itAnswersTheErrorMatrix = errorMatrixOf(use, () => projectId);
const run = runTag();
const URL_NOWHERE = "https://pharos-conformance.invalid/hook";

let projectId: string;
let webhook: Schemas["WebhookWithSecret"];

const newWebhook = async (
  client: PharosClient,
  body: Partial<Schemas["CreateWebhookRequest"]> = {},
  project = projectId,
) =>
  unwrap(
    await client.POST("/projects/{projectId}/webhooks", {
      params: { path: { projectId: project } },
      body: { name: `Hook ${run}`, url: URL_NOWHERE, ...body },
    }),
  );

beforeAll(async () => {
  const { client } = use();
  projectId = (await newProject(client, `Webhooks ${run}`)).id;
  webhook = await newWebhook(client, { events: ["create-deployment"] });
});

const path = (webhookId = webhook.id, project = projectId) => ({ projectId: project, webhookId });
/** Another project of the workspace: an endpoint is not found under it. */
const anotherProject = { parent: "project", create: async () => (await newProject(use().client, `Other ${run}`)).id };
const readWebhook = (id: () => string) => async (client: PharosClient) =>
  unwrap(await client.GET("/projects/{projectId}/webhooks/{webhookId}", { params: { path: path(id()) } }));

describe("listWebhooks", () => {
  const send: Send = (client, extra, id = projectId) =>
    client.GET("/projects/{projectId}/webhooks", { params: { path: { projectId: id } }, ...extra });

  it("200: lists the project's endpoints without secrets and pages through them", async () => {
    const { client } = use();
    const listed = (await newProject(client, `Listed ${run}`)).id;
    const made = [];
    for (const name of ["one", "two", "three"]) made.push((await newWebhook(client, { name }, listed)).id);
    const page = await client.GET("/projects/{projectId}/webhooks", {
      params: { path: { projectId: listed }, query: { limit: 2 } },
    });
    expectStatus(page, 200);
    expect(page.data?.pagination).toMatchObject({ limit: 2, returned: 2, hasMore: true });
    expect(page.data?.webhooks[0]).not.toHaveProperty("secret");
    const ids = [];
    for await (const one of paginate(client, "GET", "/projects/{projectId}/webhooks", {
      params: { path: { projectId: listed }, query: { limit: 2, sort: "createdAt:asc" } },
    })) {
      ids.push(one.id);
    }
    expect(ids).toEqual(made);
  });

  it("400 VALIDATION_ERROR for a bad sort, 400 INVALID_CURSOR for a tampered cursor", async () => {
    const { client } = use();
    const params = (query: Record<string, unknown>) => ({ params: { path: { projectId }, query } }) as never;
    expectError(
      await client.GET("/projects/{projectId}/webhooks", params({ sort: "name:asc" })),
      400,
      "VALIDATION_ERROR",
    );
    expectError(
      await client.GET("/projects/{projectId}/webhooks", params({ cursor: "garbage" })),
      400,
      "INVALID_CURSOR",
    );
  });

  itAnswersTheErrorMatrix({ access: "write", send, unknown: "project" });
});

describe("createWebhook", () => {
  const send: Send = (client, extra, id = projectId) =>
    client.POST("/projects/{projectId}/webhooks", {
      params: { path: { projectId: id } },
      body: { name: `Created ${run}`, url: URL_NOWHERE },
      ...extra,
    });

  it("201: creates an endpoint, every event by default, with its secret", async () => {
    const created = await send(use().client, {});
    expectStatus(created, 201);
    expect(created.data).toMatchObject({
      projectId,
      url: URL_NOWHERE,
      events: ["create-deployment", "evaluation-run-finished"],
      headers: {},
      previousSecretExpiresAt: null,
      secret: expect.stringMatching(/^whsec_/),
    });
  });

  it("400 VALIDATION_ERROR for a missing or bad name, URL, events or headers, and an unknown field", async () => {
    const { client } = use();
    const base = { name: "n", url: URL_NOWHERE };
    for (const body of [
      { url: URL_NOWHERE },
      { name: "n" },
      { ...base, name: "" },
      { ...base, url: "ftp://files.example.com/x" },
      { ...base, url: "not a url" },
      { ...base, events: [] },
      { ...base, events: ["prompt-deleted"] },
      { ...base, headers: { "bad name": "v" } },
      { ...base, headers: { "Content-Type": "text/plain" } },
      { ...base, secret: "mine" },
    ]) {
      const reply = await client.POST("/projects/{projectId}/webhooks", {
        params: { path: { projectId } },
        body: body as never,
      });
      expectError(reply, 400, "VALIDATION_ERROR");
    }
  });

  itAnswersTheErrorMatrix({ access: "write", send, unknown: "project", body: true });
});

describe("getWebhook", () => {
  const send: Send = (client, extra, id = webhook.id, parent = projectId) =>
    client.GET("/projects/{projectId}/webhooks/{webhookId}", { params: { path: path(id, parent) }, ...extra });

  it("200: reads the endpoint without its secret", async () => {
    const read = await send(use().client, {});
    expectStatus(read, 200);
    const { secret: _, ...withoutSecret } = webhook;
    expect(read.data).toMatchObject({ ...withoutSecret, updatedAt: expect.any(Number) });
    expect(read.data).not.toHaveProperty("secret");
  });

  itAnswersTheErrorMatrix({ access: "write", send, unknown: "webhook", elsewhere: anotherProject });
});

describe("updateWebhook", () => {
  const send: Send = (client, extra, id = webhook.id, parent = projectId) =>
    client.PATCH("/projects/{projectId}/webhooks/{webhookId}", {
      params: { path: path(id, parent) },
      body: { name: `Updated ${run}` },
      ...extra,
    });

  it("200: replaces the fields given and keeps the others", async () => {
    const { client } = use();
    const updated = await client.PATCH("/projects/{projectId}/webhooks/{webhookId}", {
      params: { path: path() },
      body: { headers: { "X-Receiver-Token": "t" }, events: ["create-deployment", "evaluation-run-finished"] },
    });
    expectStatus(updated, 200);
    expect(updated.data).toMatchObject({ url: URL_NOWHERE, headers: { "X-Receiver-Token": "t" } });
  });

  it("400 VALIDATION_ERROR for an empty update and a URL that is not http(s)", async () => {
    const { client } = use();
    for (const body of [{}, { url: "mailto:ops@example.com" }]) {
      expectError(
        await client.PATCH("/projects/{projectId}/webhooks/{webhookId}", { params: { path: path() }, body }),
        400,
        "VALIDATION_ERROR",
      );
    }
  });

  itAnswersTheErrorMatrix({
    access: "write",
    send,
    unknown: "webhook",
    elsewhere: anotherProject,
    body: true,
    unchanged: readWebhook(() => webhook.id),
  });
});

describe("deleteWebhook", () => {
  let victim: Schemas["WebhookWithSecret"];
  beforeAll(async () => {
    victim = await newWebhook(use().client, { name: "Victim" });
  });
  const send: Send = (client, extra, id = victim.id, parent = projectId) =>
    client.DELETE("/projects/{projectId}/webhooks/{webhookId}", { params: { path: path(id, parent) }, ...extra });

  it("204: deletes the endpoint; it is gone afterwards", async () => {
    const { client } = use();
    const doomed = await newWebhook(client, { name: "Doomed" });
    expectStatus(await send(client, {}, doomed.id), 204);
    expectError(await send(client, {}, doomed.id), 404, "RESOURCE_NOT_FOUND");
  });

  itAnswersTheErrorMatrix({
    access: "write",
    send,
    unknown: "webhook",
    elsewhere: anotherProject,
    unchanged: readWebhook(() => victim.id),
  });
});

describe("rotateWebhookSecret", () => {
  let rotated: Schemas["WebhookWithSecret"];
  beforeAll(async () => {
    rotated = await newWebhook(use().client, { name: "Rotated" });
  });
  const send: Send = (client, extra, id = rotated.id, parent = projectId) =>
    client.POST("/projects/{projectId}/webhooks/{webhookId}/rotate-secret", {
      params: { path: path(id, parent) },
      ...extra,
    });

  it("200: a new secret, the previous one signing until previousSecretExpiresAt (12 hours)", async () => {
    const reply = await send(use().client, {});
    expectStatus(reply, 200);
    const data = reply.data as Schemas["WebhookWithSecret"];
    expect(data.secret).not.toBe(rotated.secret);
    expect(data.previousSecretExpiresAt).toBe(data.updatedAt + 12 * 60 * 60 * 1000);
  });

  itAnswersTheErrorMatrix({ access: "write", send, unknown: "webhook", elsewhere: anotherProject });
});

describe("sendWebhookTestEvent", () => {
  const send: Send = (client, extra, id = webhook.id, parent = projectId) =>
    client.POST("/projects/{projectId}/webhooks/{webhookId}/test", { params: { path: path(id, parent) }, ...extra });

  it("200: the test delivery, attempted once (failed here: the endpoint's host does not resolve)", async () => {
    const reply = await send(use().client, {});
    expectStatus(reply, 200);
    expect(reply.data).toMatchObject({ webhookId: webhook.id, type: "test", status: "failed", nextAttemptAt: null });
    expect((reply.data as Schemas["WebhookDelivery"]).attempts).toEqual([
      expect.objectContaining({ statusCode: null, error: expect.any(String) }),
    ]);
  });

  itAnswersTheErrorMatrix({ access: "write", send, unknown: "webhook", elsewhere: anotherProject });
});

describe("listWebhookDeliveries", () => {
  const send: Send = (client, extra, id = webhook.id, parent = projectId) =>
    client.GET("/projects/{projectId}/webhooks/{webhookId}/deliveries", {
      params: { path: path(id, parent) },
      ...extra,
    });

  it("200: the delivery log, with each delivery's attempts", async () => {
    const { client } = use();
    unwrap(await client.POST("/projects/{projectId}/webhooks/{webhookId}/test", { params: { path: path() } }));
    const page = await client.GET("/projects/{projectId}/webhooks/{webhookId}/deliveries", {
      params: { path: path(), query: { limit: 1 } },
    });
    expectStatus(page, 200);
    expect(page.data?.deliveries[0]).toMatchObject({ webhookId: webhook.id, type: "test" });
    expect(page.data?.deliveries[0]?.attempts).toHaveLength(1);
  });

  it("400 INVALID_CURSOR for a tampered cursor", async () => {
    const reply = await use().client.GET("/projects/{projectId}/webhooks/{webhookId}/deliveries", {
      params: { path: path(), query: { cursor: "garbage" } },
    });
    expectError(reply, 400, "INVALID_CURSOR");
  });

  itAnswersTheErrorMatrix({ access: "write", send, unknown: "webhook", elsewhere: anotherProject });
});

itProvokedEveryDocumentedStatus(use, [
  "listWebhooks",
  "createWebhook",
  "getWebhook",
  "updateWebhook",
  "deleteWebhook",
  "rotateWebhookSecret",
  "sendWebhookTestEvent",
  "listWebhookDeliveries",
]);
