import { expect, it } from "vitest";
import { describeEachStore, type Harness } from "../../testing/harness.ts";
import { resolveModelTarget } from "./resolve-target.ts";

async function createProvider(h: Harness, key: string, body: Record<string, unknown>): Promise<string> {
  const reply = await h.request("POST", "/providers", { key, body });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.id;
}

describeEachStore("resolveModelTarget", (use) => {
  /** A fresh workspace (so "the oldest record of a kind" is this test's), and a resolver for it. */
  async function workspace(h: Harness) {
    const { key } = await h.otherWorkspace();
    const row = await h.store.db
      .selectFrom("apiKeys")
      .select("workspaceId")
      .where("id", "=", `apikey_${key.split("_")[1]}`)
      .executeTakeFirstOrThrow();
    const resolve = (choice: { providerId?: string | null; provider?: string | null; model?: string | null }) =>
      resolveModelTarget(h.store.db, h.secrets, row.workspaceId, {
        providerId: null,
        provider: null,
        model: "m",
        ...choice,
      });
    return { key, resolve };
  }

  it("resolves a providerId to its record with the credentials opened", async () => {
    const h = use();
    const { key, resolve } = await workspace(h);
    const id = await createProvider(h, key, {
      provider: "openai",
      displayName: "Main",
      baseUrl: "https://proxy.example.com/v1",
      credentials: { apiKey: "sk-main", headers: { "OpenAI-Organization": "org-1" } },
    });
    expect(await resolve({ providerId: id, provider: "openai", model: "gpt-4o" })).toEqual({
      providerId: id,
      target: {
        provider: "openai",
        baseUrl: "https://proxy.example.com/v1",
        apiKey: "sk-main",
        headers: { "OpenAI-Organization": "org-1" },
        model: "gpt-4o",
      },
    });
  });

  it("resolves a provider name to the workspace's oldest record of that kind", async () => {
    const h = use();
    const { key, resolve } = await workspace(h);
    await createProvider(h, key, { provider: "anthropic", displayName: "A", credentials: { apiKey: "sk-a" } });
    const oldest = await createProvider(h, key, {
      provider: "openai-compatible",
      displayName: "Oldest",
      baseUrl: "http://127.0.0.1:9/v1",
    });
    await createProvider(h, key, {
      provider: "openai-compatible",
      displayName: "Newer",
      baseUrl: "http://127.0.0.1:10/v1",
      credentials: { apiKey: "sk-newer" },
    });
    expect(await resolve({ provider: "openai-compatible" })).toEqual({
      providerId: oldest,
      target: {
        provider: "openai-compatible",
        baseUrl: "http://127.0.0.1:9/v1",
        apiKey: null,
        headers: {},
        model: "m",
      },
    });
    expect(await resolve({ providerId: oldest })).toMatchObject({ target: { baseUrl: "http://127.0.0.1:9/v1" } });
    expect(await resolve({ provider: "anthropic" })).toMatchObject({
      target: { provider: "anthropic", apiKey: "sk-a" },
    });
  });

  it("explains every choice it cannot resolve", async () => {
    const h = use();
    const { key, resolve } = await workspace(h);
    const keyless = await createProvider(h, key, { provider: "anthropic", displayName: "No key" });
    const foreign = await createProvider(h, (await h.otherWorkspace()).key, {
      provider: "openai",
      displayName: "Foreign",
      credentials: { apiKey: "k" },
    });
    const deleted = await createProvider(h, key, { provider: "openai", displayName: "Gone" });
    expect((await h.request("DELETE", `/providers/${deleted}`, { key })).status).toBe(204);

    const cases: [Parameters<typeof resolve>[0], string | RegExp][] = [
      [{ providerId: foreign }, `provider record ${foreign} does not exist (deleted?)`],
      [{ providerId: deleted }, `provider record ${deleted} does not exist (deleted?)`],
      [{ provider: "mistral" }, /^Pharos cannot call provider "mistral": /],
      [{ provider: "openai" }, 'no provider record of kind "openai" in the workspace: create one with POST /providers'],
      [{}, /^no provider is configured/],
      [{ providerId: keyless, model: null }, /^no model is configured/],
      [{ providerId: keyless }, new RegExp(`^provider record ${keyless} \\("No key"\\) has no credentials`)],
      [{ provider: "anthropic" }, /has no credentials/],
    ];
    for (const [choice, reason] of cases) {
      const resolved = await resolve(choice);
      expect("error" in resolved, JSON.stringify(choice)).toBe(true);
      if ("error" in resolved) expect(resolved.error).toMatch(reason);
    }
  });
});
