import { expect, it } from "vitest";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";
import { API_KEY, createProvider, storedRow, uniqueName } from "../../testing/provider-fixtures.ts";

describeEachStore("updateProvider", (use) => {
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

  it("rejects a baseUrl of null on openai-compatible or not http(s) with 400, naming baseUrl, and changes nothing", async () => {
    const h = use();
    const local = await createProvider(h, { provider: "openai-compatible", baseUrl: "http://127.0.0.1:8000/v1" });
    const path = `/providers/${local.id}`;
    const bad: [Record<string, unknown>, string][] = [
      [{ baseUrl: null }, "baseUrl"],
      [{ baseUrl: "ws://127.0.0.1:8000/v1" }, "baseUrl"],
    ];
    for (const [body, field] of bad) {
      const reply = await h.request("PATCH", path, { body });
      await expectError(reply, 400, "VALIDATION_ERROR");
      expect(reply.body.error.details[0].field).toBe(field);
    }
    expect((await h.request("GET", path)).body).toEqual({ ...local, availableModels: null });
  });

  it("rejects credentials that cannot be sent as HTTP header values with 400, and keeps the stored ones", async () => {
    const h = use();
    const provider = await createProvider(h, { credentials: { apiKey: API_KEY } });
    const before = (await storedRow(h, provider.id)).credentials;
    const reply = await h.request("PATCH", `/providers/${provider.id}`, {
      body: { credentials: { apiKey: API_KEY, headers: { "OpenAI-Organization": "org\n1" } } },
    });
    await expectError(reply, 400, "VALIDATION_ERROR");
    expect(reply.body.error.details[0].field).toBe("credentials.headers.OpenAI-Organization");
    expect((await storedRow(h, provider.id)).credentials).toBe(before);
  });

  it("answers 409 CONFLICT for the display name of another record, compared case-insensitively; a record may recase its own", async () => {
    const h = use();
    const name = uniqueName("Shared");
    const first = await createProvider(h, { displayName: name });
    const other = await createProvider(h);
    await expectError(
      await h.request("PATCH", `/providers/${other.id}`, { body: { displayName: name.toLowerCase() } }),
      409,
      "CONFLICT",
    );
    const recased = await h.request("PATCH", `/providers/${first.id}`, { body: { displayName: name.toUpperCase() } });
    expect(recased.status).toBe(200);
    expect(recased.body.displayName).toBe(name.toUpperCase());
  });
});
