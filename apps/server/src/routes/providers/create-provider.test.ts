import { expect, it } from "vitest";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";
import { API_KEY, createProvider, storedRow, uniqueName } from "../../testing/provider-fixtures.ts";

describeEachStore("createProvider", (use) => {
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

  it("rejects a baseUrl that is missing for openai-compatible or not http(s) with 400, naming baseUrl", async () => {
    const h = use();
    const bad: [Record<string, unknown>, string][] = [
      [{ provider: "openai-compatible" }, "baseUrl"],
      [{ provider: "openai-compatible", baseUrl: null }, "baseUrl"],
      [{ baseUrl: "ftp://files.example.com/v1" }, "baseUrl"],
      [{ baseUrl: "mailto:ops@example.com" }, "baseUrl"],
      [{ provider: "openai-compatible", baseUrl: "file:///etc/passwd" }, "baseUrl"],
    ];
    for (const [fields, field] of bad) {
      const reply = await h.request("POST", "/providers", {
        body: { provider: "openai", displayName: uniqueName(), ...fields },
      });
      await expectError(reply, 400, "VALIDATION_ERROR");
      expect(reply.body.error.details[0].field, JSON.stringify(fields)).toBe(field);
    }
  });

  it("rejects credentials that cannot be sent as HTTP header values with 400 naming them, and stores nothing", async () => {
    const h = use();
    const before = (await h.request("GET", "/providers?limit=200")).body.providers.length;
    const cases: [Record<string, unknown>, string][] = [
      [{ apiKey: "sk-line\nbreak" }, "credentials.apiKey"],
      [{ apiKey: "sk-€uro" }, "credentials.apiKey"],
      [{ apiKey: API_KEY, headers: { "X-Team": "a\r\nX-Injected: 1" } }, "credentials.headers.X-Team"],
    ];
    for (const [credentials, field] of cases) {
      const reply = await h.request("POST", "/providers", {
        body: { provider: "openai", displayName: uniqueName(), credentials },
      });
      await expectError(reply, 400, "VALIDATION_ERROR");
      expect(reply.body.error.details).toContainEqual({ field, issue: expect.stringMatching(/HTTP header value/) });
    }
    expect((await h.request("GET", "/providers?limit=200")).body.providers.length).toBe(before);
    // Latin-1 beyond ASCII is sendable.
    expect(
      (
        await h.request("POST", "/providers", {
          body: { provider: "openai", displayName: uniqueName(), credentials: { apiKey: "clé-Ø" } },
        })
      ).status,
    ).toBe(201);
  });

  it("answers 409 CONFLICT for a display name the workspace already has, compared case-insensitively", async () => {
    const h = use();
    const name = uniqueName("Shared");
    await createProvider(h, { displayName: name });
    const duplicate = await h.request("POST", "/providers", {
      body: { provider: "anthropic", displayName: name.toUpperCase() },
    });
    await expectError(duplicate, 409, "CONFLICT");
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
});
