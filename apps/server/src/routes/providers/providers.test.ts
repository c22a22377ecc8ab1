import { expect, it } from "vitest";
import { describeEachStore, type Harness } from "../../testing/harness.ts";
import {
  expectError,
  itHidesOtherWorkspaces,
  itRejectsMalformedJson,
  itRejectsMissingAndInvalidKeys,
} from "../../testing/shared-cases.ts";

const MISSING_PROVIDER = `provider_${"0".repeat(26)}`;
const API_KEY = "sk-proj-NEVER-SHOWN-4f9a1c";

let counter = 0;
/** A display name no other test of the block uses. */
const uniqueName = (base = "Provider") => `${base} ${++counter}`;

async function createProvider(h: Harness, body: Record<string, unknown> = {}, key?: string) {
  const reply = await h.request("POST", "/providers", {
    body: { provider: "openai", displayName: uniqueName(), ...body },
    key,
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body;
}

async function storedRow(h: Harness, id: string) {
  return h.store.db.selectFrom("providers").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
}

describeEachStore("providers", (use) => {
  it("creates a record (201) whose credentials are sealed in the database and never returned", async () => {
    const h = use();
    const credentials = { apiKey: API_KEY, headers: { "OpenAI-Organization": "org-SECRET-HEADER" } };
    const created = await h.request("POST", "/providers", {
      body: { provider: "openai", displayName: "OpenAI (production)", credentials },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^provider_[0-9A-Z]{26}$/),
      provider: "openai",
      displayName: "OpenAI (production)",
      baseUrl: null,
      hasCredentials: true,
      createdAt: expect.any(Number),
      updatedAt: created.body.createdAt,
    });
    const id = created.body.id;
    const read = await h.request("GET", `/providers/${id}`);
    expect(read.body).toEqual({ ...created.body, availableModels: null });
    const withModels = await h.request("GET", `/providers/${id}?includeModels=true`);
    const listed = await h.request("GET", "/providers?limit=200");
    const renamed = await h.request("PATCH", `/providers/${id}`, { body: { displayName: "OpenAI (prod)" } });
    for (const reply of [created, read, withModels, listed, renamed]) {
      expect(reply.status).toBe(200 + (reply === created ? 1 : 0));
      expect(JSON.stringify(reply.body)).not.toMatch(/NEVER-SHOWN|SECRET-HEADER|credentials/);
    }

    const row = await storedRow(h, id);
    expect(row.credentials).not.toBeNull();
    expect(row.credentials).not.toContain(API_KEY);
    expect(row.credentials).not.toContain("SECRET-HEADER");
    expect(JSON.parse(h.secrets.open(row.credentials as string))).toEqual(credentials);
    expect(row.displayNameKey).toBe("openai (prod)");
  });

  it("keeps an http(s) baseUrl, requires one for openai-compatible, and allows no credentials", async () => {
    const h = use();
    const anthropic = await createProvider(h, { provider: "anthropic", baseUrl: "https://gateway.example.com/v1" });
    expect(anthropic).toMatchObject({ baseUrl: "https://gateway.example.com/v1", hasCredentials: false });
    const local = await createProvider(h, { provider: "openai-compatible", baseUrl: "http://127.0.0.1:11434/v1" });
    expect(local).toMatchObject({ provider: "openai-compatible", baseUrl: "http://127.0.0.1:11434/v1" });
    expect((await createProvider(h, { baseUrl: null })).baseUrl).toBeNull();
    expect((await storedRow(h, local.id)).credentials).toBeNull();
  });

  it("rejects invalid bodies with 400 VALIDATION_ERROR", async () => {
    const h = use();
    const headers = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-H${i}`, "v"]));
    const bad: [Record<string, unknown>, string | undefined][] = [
      [{ provider: "openai-compatible" }, "baseUrl"],
      [{ provider: "openai-compatible", baseUrl: null }, "baseUrl"],
      [{ baseUrl: "ftp://files.example.com/v1" }, "baseUrl"],
      [{ baseUrl: "mailto:ops@example.com" }, "baseUrl"],
      [{ provider: "openai-compatible", baseUrl: "file:///etc/passwd" }, "baseUrl"],
      [{ baseUrl: "/v1" }, undefined],
      [{ baseUrl: `https://example.com/${"a".repeat(2048)}` }, undefined],
      [{ provider: "mistral" }, undefined],
      [{ provider: "OpenAI" }, undefined],
      [{ displayName: "" }, undefined],
      [{ displayName: "d".repeat(101) }, undefined],
      [{ displayName: undefined }, undefined],
      [{ credentials: {} }, undefined],
      [{ credentials: { apiKey: "" } }, undefined],
      [{ credentials: { apiKey: "k", token: "t" } }, undefined],
      [{ credentials: { apiKey: "k", headers: { "Bad Header": "v" } } }, undefined],
      [{ credentials: { apiKey: "k", headers } }, undefined],
      [{ region: "eu" }, undefined],
    ];
    for (const [fields, field] of bad) {
      const reply = await h.request("POST", "/providers", {
        body: { provider: "openai", displayName: uniqueName(), ...fields },
      });
      await expectError(reply, 400, "VALIDATION_ERROR");
      if (field) expect(reply.body.error.details[0].field, JSON.stringify(fields)).toBe(field);
    }
  });

  it("answers 409 CONFLICT for a display name the workspace already has, compared case-insensitively", async () => {
    const h = use();
    const name = uniqueName("Shared");
    const first = await createProvider(h, { displayName: name });
    const duplicate = await h.request("POST", "/providers", {
      body: { provider: "anthropic", displayName: name.toUpperCase() },
    });
    await expectError(duplicate, 409, "CONFLICT");
    const other = await createProvider(h);
    await expectError(
      await h.request("PATCH", `/providers/${other.id}`, { body: { displayName: name.toLowerCase() } }),
      409,
      "CONFLICT",
    );
    const recased = await h.request("PATCH", `/providers/${first.id}`, { body: { displayName: name.toUpperCase() } });
    expect(recased.status).toBe(200);
    expect(recased.body.displayName).toBe(name.toUpperCase());
    // Concurrent creates race past the name check: the unique constraint still lets exactly one through.
    const raced = uniqueName("Raced");
    const replies = await Promise.all(
      ["openai", "anthropic", "openai", "anthropic"].map((provider) =>
        h.request("POST", "/providers", { body: { provider, displayName: raced } }),
      ),
    );
    expect(replies.map((reply) => reply.status).sort()).toEqual([201, 409, 409, 409]);
    for (const reply of replies.filter((r) => r.status === 409)) await expectError(reply, 409, "CONFLICT");
    // Another workspace may use the same name.
    const elsewhere = await h.otherWorkspace();
    const reply = await h.request("POST", "/providers", {
      body: { provider: "openai", displayName: name },
      key: elsewhere.key,
    });
    expect(reply.status).toBe(201);
  });

  it("updates name, baseUrl and credentials; null credentials remove them, null baseUrl restores the default", async () => {
    const h = use();
    const created = await createProvider(h, { baseUrl: "https://proxy.example.com/v1", credentials: { apiKey: "k1" } });
    const path = `/providers/${created.id}`;
    const rotated = await h.request("PATCH", path, { body: { credentials: { apiKey: "sk-ROTATED-abc" } } });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({ ...created, updatedAt: rotated.body.updatedAt });
    expect(rotated.body.updatedAt).toBeGreaterThan(created.updatedAt);
    const row = await storedRow(h, created.id);
    expect(JSON.parse(h.secrets.open(row.credentials as string))).toEqual({ apiKey: "sk-ROTATED-abc" });
    expect(row.credentials).not.toContain("ROTATED");

    const defaulted = await h.request("PATCH", path, { body: { baseUrl: null, displayName: "Renamed provider" } });
    expect(defaulted.body).toMatchObject({ baseUrl: null, displayName: "Renamed provider", hasCredentials: true });
    const removed = await h.request("PATCH", path, { body: { credentials: null } });
    expect(removed.body.hasCredentials).toBe(false);
    expect((await storedRow(h, created.id)).credentials).toBeNull();
    expect((await h.request("GET", path)).body).toEqual({ ...removed.body, availableModels: null });
  });

  it("rejects invalid updates with 400 and changes nothing", async () => {
    const h = use();
    const local = await createProvider(h, { provider: "openai-compatible", baseUrl: "http://127.0.0.1:8000/v1" });
    const path = `/providers/${local.id}`;
    const bad: [Record<string, unknown>, string | undefined][] = [
      [{}, undefined],
      [{ baseUrl: null }, "baseUrl"],
      [{ baseUrl: "ws://127.0.0.1:8000/v1" }, "baseUrl"],
      [{ baseUrl: "nope" }, undefined],
      [{ provider: "openai" }, undefined],
      [{ displayName: "" }, undefined],
      [{ credentials: { headers: { a: "b" } } }, undefined],
    ];
    for (const [body, field] of bad) {
      const reply = await h.request("PATCH", path, { body });
      await expectError(reply, 400, "VALIDATION_ERROR");
      if (field) expect(reply.body.error.details[0].field).toBe(field);
    }
    expect((await h.request("GET", path)).body).toEqual({ ...local, availableModels: null });
  });

  it("deletes a record with its credentials (204); it is then gone (404)", async () => {
    const h = use();
    const created = await createProvider(h, { credentials: { apiKey: "k" } });
    const path = `/providers/${created.id}`;
    const deleted = await h.request("DELETE", path);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBe("");
    expect(
      await h.store.db.selectFrom("providers").select("id").where("id", "=", created.id).executeTakeFirst(),
    ).toBeUndefined();
    await expectError(await h.request("GET", path), 404, "RESOURCE_NOT_FOUND");
    await expectError(await h.request("PATCH", path, { body: { displayName: "x" } }), 404, "RESOURCE_NOT_FOUND");
    await expectError(await h.request("DELETE", path), 404, "RESOURCE_NOT_FOUND");
  });

  it("answers 404 for unknown ids and 400 for malformed ones", async () => {
    const h = use();
    for (const [method, body] of [
      ["GET", undefined],
      ["PATCH", { displayName: "x" }],
      ["DELETE", undefined],
    ] as const) {
      await expectError(await h.request(method, `/providers/${MISSING_PROVIDER}`, { body }), 404, "RESOURCE_NOT_FOUND");
      await expectError(await h.request(method, "/providers/provider_1", { body }), 400, "VALIDATION_ERROR");
    }
    const created = await createProvider(h);
    await expectError(await h.request("GET", `/providers/${created.id}?includeModels=maybe`), 400, "VALIDATION_ERROR");
  });

  it("lists the workspace's records newest first, pages with cursors, sorts and filters by creation", async () => {
    const h = use();
    const { key } = await h.otherWorkspace();
    const made = [];
    for (const name of ["a", "b", "c"]) made.push(await createProvider(h, { displayName: name }, key));
    const page = await h.request("GET", "/providers?limit=2", { key });
    expect(page.status).toBe(200);
    expect(page.body.providers).toEqual([made[2], made[1]]);
    expect(page.body.pagination).toMatchObject({ limit: 2, returned: 2, hasMore: true });
    const next = await h.request("GET", `/providers?limit=2&cursor=${page.body.pagination.nextCursor}`, { key });
    expect(next.body.providers).toEqual([made[0]]);
    expect(next.body.pagination).toMatchObject({ returned: 1, hasMore: false, nextCursor: null });
    const ascending = await h.request("GET", "/providers?sort=createdAt:asc", { key });
    expect(ascending.body.providers.map((p: { id: string }) => p.id)).toEqual(made.map((p) => p.id));
    const window = await h.request(
      "GET",
      `/providers?createdAfter=${made[1].createdAt}&createdBefore=${made[1].createdAt}`,
      { key },
    );
    expect(window.body.providers).toEqual([made[1]]);
    await expectError(
      await h.request("GET", `/providers?sort=createdAt:asc&cursor=${page.body.pagination.nextCursor}`, { key }),
      400,
      "INVALID_CURSOR",
    );
    for (const query of ["limit=201", "limit=0", "sort=name:asc", "createdAfter=soon"]) {
      await expectError(await h.request("GET", `/providers?${query}`, { key }), 400, "VALIDATION_ERROR");
    }
  });

  it("fills availableModels with includeModels=true exactly as GET /models?providerId= lists them", async () => {
    const h = use();
    const openai = await createProvider(h, { credentials: { apiKey: "k" } });
    const read = await h.request("GET", `/providers/${openai.id}?includeModels=true`);
    expect(read.status).toBe(200);
    const models = await h.request("GET", `/models?providerId=${openai.id}`);
    expect(read.body.availableModels).toEqual(models.body.models);
    expect(read.body.availableModels).toContainEqual({
      id: `${openai.id}:gpt-4o`,
      providerId: openai.id,
      provider: "openai",
      model: "gpt-4o",
      enabled: true,
      inputPricePerMillionTokens: 2.5,
      outputPricePerMillionTokens: 10,
    });
    const off = await h.request("GET", `/providers/${openai.id}?includeModels=false`);
    expect(off.body.availableModels).toBeNull();
  });

  it("lets read-only and project-restricted keys read; writes need a full, unrestricted key (403)", async () => {
    const h = use();
    const created = await createProvider(h);
    const path = `/providers/${created.id}`;
    const readOnly = await h.newKey("read-only");
    const restricted = await h.newKey("full", [h.projectId]);
    const ingestOnly = await h.newKey("ingest-only");
    for (const key of [readOnly, restricted]) {
      expect((await h.request("GET", "/providers", { key })).status).toBe(200);
      expect((await h.request("GET", path, { key })).status).toBe(200);
      await expectError(
        await h.request("POST", "/providers", { key, body: { provider: "openai", displayName: uniqueName() } }),
        403,
        "FORBIDDEN",
      );
      await expectError(await h.request("PATCH", path, { key, body: { displayName: "x" } }), 403, "FORBIDDEN");
      await expectError(await h.request("DELETE", path, { key }), 403, "FORBIDDEN");
    }
    await expectError(await h.request("GET", "/providers", { key: ingestOnly }), 403, "FORBIDDEN");
    await expectError(await h.request("GET", path, { key: ingestOnly }), 403, "FORBIDDEN");
    expect((await h.request("GET", path)).body.displayName).toBe(created.displayName);
  });

  it("hides records from other workspaces: get, update and delete are 404, the list leaves them out", async () => {
    const h = use();
    const created = await createProvider(h);
    const other = await h.otherWorkspace();
    const path = `/providers/${created.id}`;
    await expectError(
      await h.request("PATCH", path, { key: other.key, body: { displayName: "x" } }),
      404,
      "RESOURCE_NOT_FOUND",
    );
    await expectError(await h.request("DELETE", path, { key: other.key }), 404, "RESOURCE_NOT_FOUND");
    expect((await h.request("GET", "/providers", { key: other.key })).body.providers).toEqual([]);
    expect((await h.request("GET", path)).status).toBe(200);
  });

  itRejectsMissingAndInvalidKeys(use, { method: "GET", path: () => "/providers" });
  itRejectsMalformedJson(use, { method: "POST", path: () => "/providers" });
  itHidesOtherWorkspaces(use, { method: "GET", path: async (h) => `/providers/${(await createProvider(h)).id}` });
});
