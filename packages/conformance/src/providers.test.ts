/** Provider records through the client, every response validated against the spec. */
import { type PharosClient, paginate, unwrap } from "@pharos/client";
import { beforeAll, describe, expect, it } from "vitest";
import { itAnswersTheErrorMatrix, itProvokedEveryDocumentedStatus, type Send } from "./cases.ts";
import { newProvider, runTag, type Schemas } from "./fixtures.ts";
import { expectError, expectStatus } from "./replies.ts";
import { useTarget } from "./target.ts";

const use = useTarget();
const run = runTag();
const API_KEY = `sk-conformance-${run}-never-returned`;
/** A loopback URL that nothing is expected to listen on (the discard port). */
const DEAD_SERVER = "http://127.0.0.1:9/v1";

let counter = 0;
/** A display name unique to this run and call (records are workspace-wide, so a long-lived target keeps them). */
const uniqueName = (base = "Provider") => `${base} ${run} ${++counter}`;

/** An OpenAI record with credentials, for reads. */
let provider: Schemas["Provider"];
beforeAll(async () => {
  provider = await newProvider(use().client, {
    provider: "openai",
    displayName: uniqueName("OpenAI"),
    credentials: { apiKey: API_KEY },
  });
});

const providerPath = () => ({ providerId: provider.id });
/** Reads a record, or every record: what a refused change must leave as it was. */
const readProvider = (id: () => string) => async (client: PharosClient) =>
  unwrap(await client.GET("/providers/{providerId}", { params: { path: { providerId: id() } } }));
const readProviders = async (client: PharosClient) =>
  unwrap(await client.GET("/providers", { params: { query: { limit: 200 } } }));

describe("listProviders", () => {
  const send: Send = (client, extra) => client.GET("/providers", { ...extra });

  it("200: lists the workspace's records without credentials and pages through them with cursors", async () => {
    const { client } = use();
    const made: Schemas["Provider"][] = [];
    for (let i = 0; i < 3; i++)
      made.push(await newProvider(client, { provider: "anthropic", displayName: uniqueName() }));
    const first = await client.GET("/providers", { params: { query: { limit: 1 } } });
    expectStatus(first, 200);
    expect(first.data?.pagination).toMatchObject({ limit: 1, returned: 1, hasMore: true });
    expect(JSON.stringify(first.data)).not.toContain(API_KEY);
    const ids: string[] = [];
    for await (const record of paginate(client, "GET", "/providers", {
      params: { query: { limit: 2, sort: "createdAt:asc" } },
    })) {
      ids.push(record.id);
    }
    const madeIds = made.map((p) => p.id);
    expect(ids).toContain(provider.id);
    expect(ids.filter((id) => madeIds.includes(id))).toEqual(madeIds);
    const window = unwrap(
      await client.GET("/providers", {
        params: { query: { createdAfter: made[1]?.createdAt, createdBefore: made[1]?.createdAt } },
      }),
    );
    expect(window.providers.map((p) => p.id)).toContain(made[1]?.id);
    expect(window.providers.every((p) => p.createdAt === made[1]?.createdAt)).toBe(true);
  });

  it("400 VALIDATION_ERROR for a page size of 0 or over 200, a bad sort or time, 400 INVALID_CURSOR for a bad cursor", async () => {
    const { client } = use();
    for (const query of [{ limit: 201 }, { limit: 0 }, { sort: "name:asc" }, { createdAfter: "soon" }]) {
      expectError(await client.GET("/providers", { params: { query } as never }), 400, "VALIDATION_ERROR");
    }
    expectError(await client.GET("/providers", { params: { query: { cursor: "garbage" } } }), 400, "INVALID_CURSOR");
  });

  itAnswersTheErrorMatrix(use, { access: "workspace-read", send, hidden: false });
});

describe("createProvider", () => {
  const send: Send = (client, extra) =>
    client.POST("/providers", { body: { provider: "openai", displayName: uniqueName() }, ...extra });
  const create = (fields: Record<string, unknown>) =>
    use().client.POST("/providers", {
      body: { provider: "openai", displayName: uniqueName(), ...fields } as never,
    });

  it("201: creates a record; credentials are stored but never returned", async () => {
    const created = await create({
      credentials: { apiKey: API_KEY, headers: { "OpenAI-Organization": "org-conformance" } },
    });
    expectStatus(created, 201);
    expect(created.data).toMatchObject({ provider: "openai", baseUrl: null, hasCredentials: true });
    expect(JSON.stringify(created.data)).not.toContain(API_KEY);
  });

  it("201: an openai-compatible record with its baseUrl and no credentials, an anthropic one with a baseUrl", async () => {
    const local = await create({ provider: "openai-compatible", baseUrl: DEAD_SERVER });
    expectStatus(local, 201);
    expect(local.data).toMatchObject({ provider: "openai-compatible", baseUrl: DEAD_SERVER, hasCredentials: false });
    const gateway = await create({ provider: "anthropic", baseUrl: "https://gateway.example.com" });
    expectStatus(gateway, 201);
    expect(gateway.data?.baseUrl).toBe("https://gateway.example.com");
  });

  it("400 VALIDATION_ERROR for a missing, relative, too long or non-http(s) baseUrl, a bad kind, a missing or bad name, bad credentials (empty key, unknown field, header names, over 20 headers) and an unknown field", async () => {
    const headers = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-Header-${i}`, "v"]));
    const cases = [
      { provider: "openai-compatible" },
      { provider: "openai-compatible", baseUrl: null },
      { baseUrl: "ftp://files.example.com/v1" },
      { baseUrl: "not a url" },
      { baseUrl: "/v1" },
      { baseUrl: `https://example.com/${"a".repeat(2048)}` },
      { provider: "mistral" },
      { provider: "OpenAI" },
      { displayName: "" },
      { displayName: "d".repeat(101) },
      { displayName: undefined },
      { credentials: {} },
      { credentials: { apiKey: "" } },
      { credentials: { apiKey: "k", token: "t" } },
      { credentials: { apiKey: "k", headers: { "Bad Header": "v" } } },
      { credentials: { apiKey: "k", headers } },
      { hasCredentials: true },
      { region: "eu" },
    ];
    for (const fields of cases) expectError(await create(fields), 400, "VALIDATION_ERROR");
  });

  it("409 CONFLICT for a display name the workspace already has, compared case-insensitively", async () => {
    const { client } = use();
    const name = uniqueName("Taken");
    expectStatus(await client.POST("/providers", { body: { provider: "openai", displayName: name } }), 201);
    const duplicate = await client.POST("/providers", {
      body: { provider: "anthropic", displayName: name.toUpperCase() },
    });
    expectError(duplicate, 409, "CONFLICT");
  });

  itAnswersTheErrorMatrix(use, {
    access: "workspace-write",
    send,
    hidden: false,
    body: true,
    unchanged: readProviders,
  });
});

describe("getProvider", () => {
  const send: Send = (client, extra, id = provider.id) =>
    client.GET("/providers/{providerId}", { params: { path: { providerId: id } }, ...extra });

  it("200: reads the record with availableModels null, never with credentials", async () => {
    const read = await send(use().client, {});
    expectStatus(read, 200);
    expect(read.data).toEqual({ ...provider, availableModels: null });
    expect(JSON.stringify(read.data)).not.toContain(API_KEY);
  });

  it("200: includeModels=true lists the record's models with prices", async () => {
    const read = await use().client.GET("/providers/{providerId}", {
      params: { path: providerPath(), query: { includeModels: true } },
    });
    expectStatus(read, 200);
    expect(read.data?.availableModels).toContainEqual({
      id: `${provider.id}:gpt-4o-mini`,
      providerId: provider.id,
      provider: "openai",
      model: "gpt-4o-mini",
      enabled: true,
      inputPricePerMillionTokens: 0.15,
      outputPricePerMillionTokens: 0.6,
    });
  });

  it("200: includeModels=true on an openai-compatible server that cannot be reached gives []", async () => {
    const { client } = use();
    const local = await newProvider(client, {
      provider: "openai-compatible",
      displayName: uniqueName("Down"),
      baseUrl: DEAD_SERVER,
    });
    const read = await client.GET("/providers/{providerId}", {
      params: { path: { providerId: local.id }, query: { includeModels: true } },
    });
    expectStatus(read, 200);
    expect(read.data?.availableModels).toEqual([]);
  });

  it("400 VALIDATION_ERROR for a short id and a non-boolean includeModels", async () => {
    const { client } = use();
    const short = await client.GET("/providers/{providerId}", { params: { path: { providerId: "provider_1" } } });
    expectError(short, 400, "VALIDATION_ERROR");
    const maybe = await client.GET("/providers/{providerId}", {
      params: { path: providerPath(), query: { includeModels: "maybe" } } as never,
    });
    expectError(maybe, 400, "VALIDATION_ERROR");
  });

  itAnswersTheErrorMatrix(use, { access: "workspace-read", send, unknown: "provider" });
});

describe("updateProvider", () => {
  /** A record this block changes. */
  let target: Schemas["Provider"];
  beforeAll(async () => {
    target = await newProvider(use().client, {
      provider: "openai",
      displayName: uniqueName("Updated"),
      baseUrl: "https://proxy.example.com/v1",
      credentials: { apiKey: API_KEY },
    });
  });
  const send: Send = (client, extra, id = target.id) =>
    client.PATCH("/providers/{providerId}", {
      params: { path: { providerId: id } },
      body: { displayName: uniqueName("Renamed") },
      ...extra,
    });
  const update = (fields: Record<string, unknown>, providerId = target.id) =>
    use().client.PATCH("/providers/{providerId}", { params: { path: { providerId } }, body: fields as never });

  it("200: renames, rotates and removes credentials, restores the default baseUrl", async () => {
    const name = uniqueName("Rotated");
    const rotated = await update({ displayName: name, credentials: { apiKey: `${API_KEY}-2` } });
    expectStatus(rotated, 200);
    expect(rotated.data).toMatchObject({ id: target.id, displayName: name, hasCredentials: true });
    expect(JSON.stringify(rotated.data)).not.toContain(API_KEY);
    const defaulted = await update({ baseUrl: null });
    expectStatus(defaulted, 200);
    expect(defaulted.data?.baseUrl).toBeNull();
    const removed = await update({ credentials: null });
    expectStatus(removed, 200);
    expect(removed.data).toMatchObject({ hasCredentials: false, displayName: name });
  });

  it("400 VALIDATION_ERROR for an empty update, a kind change, a bad baseUrl, name or credentials, and baseUrl null on openai-compatible; the record is left as it was", async () => {
    const read = async () =>
      unwrap(await use().client.GET("/providers/{providerId}", { params: { path: { providerId: target.id } } }));
    const before = await read();
    const cases = [
      {},
      { provider: "anthropic" },
      { baseUrl: "ftp://x.example.com" },
      { baseUrl: "nope" },
      { displayName: "" },
      { credentials: { headers: { a: "b" } } },
      { credentials: { apiKey: "k", headers: { "Bad:Header": "v" } } },
    ];
    for (const fields of cases) {
      expectError(await update(fields), 400, "VALIDATION_ERROR");
    }
    expect(await read()).toEqual(before);
    const local = await newProvider(use().client, {
      provider: "openai-compatible",
      displayName: uniqueName("Local"),
      baseUrl: DEAD_SERVER,
    });
    expectError(await update({ baseUrl: null }, local.id), 400, "VALIDATION_ERROR");
  });

  it("409 CONFLICT for a display name another record has", async () => {
    expectError(await update({ displayName: provider.displayName.toLowerCase() }), 409, "CONFLICT");
  });

  const unchanged = readProvider(() => target.id);
  itAnswersTheErrorMatrix(use, { access: "workspace-write", send, unknown: "provider", body: true, unchanged });
});

describe("deleteProvider", () => {
  let victim: Schemas["Provider"];
  beforeAll(async () => {
    victim = await newProvider(use().client, { provider: "anthropic", displayName: uniqueName("Victim") });
  });
  const send: Send = (client, extra, id = victim.id) =>
    client.DELETE("/providers/{providerId}", { params: { path: { providerId: id } }, ...extra });
  const remove = (providerId: string) =>
    use().client.DELETE("/providers/{providerId}", { params: { path: { providerId } } });

  it("204: deletes the record; it is gone afterwards", async () => {
    const doomed = await newProvider(use().client, {
      provider: "openai",
      displayName: uniqueName("Doomed"),
      credentials: { apiKey: API_KEY },
    });
    expectStatus(await remove(doomed.id), 204);
    const path = { providerId: doomed.id };
    expectError(await use().client.GET("/providers/{providerId}", { params: { path } }), 404, "RESOURCE_NOT_FOUND");
    expectError(await remove(doomed.id), 404, "RESOURCE_NOT_FOUND");
  });

  const unchanged = readProvider(() => victim.id);
  itAnswersTheErrorMatrix(use, { access: "workspace-write", send, unknown: "provider", unchanged });
});

itProvokedEveryDocumentedStatus(use, [
  "listProviders",
  "createProvider",
  "getProvider",
  "updateProvider",
  "deleteProvider",
]);
