import { expect, it } from "vitest";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore, type Harness } from "../../testing/harness.ts";
import { newProject } from "../../testing/log-write-fixtures.ts";

const create = (h: Harness, body: object, key?: string) => h.request("POST", "/api-keys", { body, key });
const revoke = (h: Harness, id: string, key?: string) => h.request("DELETE", `/api-keys/${id}`, { key });

describeEachStore("API keys", (use) => {
  it("creates a key (201) shown once, which works with its role and projects, is listed without secret, and is refused once revoked", async () => {
    const h = use();
    const projectId = await newProject(h);
    const created = await create(h, { name: "Checkout service", role: "ingest-only", projectIds: [projectId] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { key, ...shown } = created.body;
    expect(key).toMatch(/^phk_/);
    expect(shown).toEqual({
      id: expect.stringMatching(/^apikey_/),
      name: "Checkout service",
      role: "ingest-only",
      projectIds: [projectId],
      createdAt: expect.any(Number),
      expiresAt: null,
      revokedAt: null,
      lastUsedAt: null,
    });
    // The new key does what its role allows, in its project only.
    const trace = { name: "t", status: "success", startedAt: h.now() - 1000 };
    expect((await h.request("POST", "/logs/trace", { body: { projectId, trace }, key })).status).toBe(200);
    await expectError(await h.request("POST", "/logs/traces", { body: { projectId }, key }), 403, "FORBIDDEN");
    await expectError(
      await h.request("POST", "/logs/trace", { body: { projectId: h.projectId, trace }, key }),
      403,
      "FORBIDDEN",
    );

    const listed = await h.request("GET", "/api-keys?limit=200");
    expect(listed.status).toBe(200);
    const entry = listed.body.apiKeys.find((item: { id: string }) => item.id === shown.id);
    expect(entry).toMatchObject({ ...shown, lastUsedAt: expect.any(Number) });
    expect(JSON.stringify(listed.body)).not.toContain(key.slice(-20));

    expect((await revoke(h, shown.id)).status).toBe(204);
    await expectError(
      await h.request("POST", "/logs/trace", { body: { projectId, trace }, key }),
      401,
      "AUTHENTICATION_REQUIRED",
    );
    // Again: nothing changes.
    const revokedAt = (await h.request("GET", "/api-keys?limit=200")).body.apiKeys.find(
      (item: { id: string }) => item.id === shown.id,
    ).revokedAt;
    expect(revokedAt).toEqual(expect.any(Number));
    expect((await revoke(h, shown.id)).status).toBe(204);
  });

  it("counts a project named twice once", async () => {
    const h = use();
    const projectId = await newProject(h);
    const created = await create(h, { name: "Twice", role: "read-only", projectIds: [projectId, projectId] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.projectIds).toEqual([projectId]);
  });

  it("answers admin keys only: 403 for read-only, ingest-only and project-restricted full keys", async () => {
    const h = use();
    for (const key of [
      await h.newKey("read-only"),
      await h.newKey("ingest-only"),
      await h.newKey("full", [h.projectId]),
    ]) {
      await expectError(await h.request("GET", "/api-keys", { key }), 403, "FORBIDDEN");
      await expectError(await create(h, { name: "x", role: "full" }, key), 403, "FORBIDDEN");
      await expectError(await revoke(h, "apikey_01JD8Q2A1B2C3D4E5F6G7H8J9K", key), 403, "FORBIDDEN");
    }
  });

  it("refuses a bad role, an expiry not in the future, an unknown or foreign project, a key of another workspace; nothing created", async () => {
    const h = use();
    const count = async () => (await h.request("GET", "/api-keys?limit=200")).body.apiKeys.length;
    const before = await count();
    await expectError(await create(h, { name: "x", role: "owner" }), 400, "VALIDATION_ERROR");
    await expectError(await create(h, { name: "", role: "full" }), 400, "VALIDATION_ERROR");
    await expectError(await create(h, { name: "x", role: "full", extra: 1 }), 400, "VALIDATION_ERROR");
    const past = await create(h, { name: "x", role: "full", expiresAt: h.now() });
    await expectError(past, 400, "VALIDATION_ERROR");
    expect(past.body.error.details).toEqual([expect.objectContaining({ field: "expiresAt" })]);
    const other = await h.otherWorkspace();
    await expectError(
      await create(h, { name: "x", role: "full", projectIds: [other.projectId] }),
      404,
      "RESOURCE_NOT_FOUND",
    );
    expect(await count()).toBe(before);
    // A key of another workspace is not found, and stays valid.
    const theirs = await create(h, { name: "theirs", role: "read-only" }, other.key);
    await expectError(await revoke(h, theirs.body.id), 404, "RESOURCE_NOT_FOUND");
    expect((await h.request("GET", "/projects", { key: theirs.body.key })).status).toBe(200);
  });

  it("lets an admin key revoke itself only when another active admin key remains (409 otherwise, nothing changed)", async () => {
    const h = use();
    const workspace = await h.otherWorkspace();
    const self = await h.request("GET", "/api-keys", { key: workspace.key });
    const [own] = self.body.apiKeys;
    // A restricted full key and an expired admin key are not admin keys that remain.
    await create(h, { name: "restricted", role: "full", projectIds: [workspace.projectId] }, workspace.key);
    const conflict = await revoke(h, own.id, workspace.key);
    await expectError(conflict, 409, "CONFLICT");
    expect((await h.request("GET", "/projects", { key: workspace.key })).status).toBe(200);

    const second = await create(h, { name: "second admin", role: "full" }, workspace.key);
    expect((await revoke(h, own.id, workspace.key)).status).toBe(204);
    await expectError(await h.request("GET", "/projects", { key: workspace.key }), 401, "AUTHENTICATION_REQUIRED");
    // The second admin is now the last one: it may revoke others, not itself.
    await expectError(await revoke(h, second.body.id, second.body.key), 409, "CONFLICT");
  });
});
