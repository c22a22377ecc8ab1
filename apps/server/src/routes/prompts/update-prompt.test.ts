import { expect, it } from "vitest";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";
import {
  createPrompt,
  createProviderRecord,
  imageUrl,
  MISSING_PROVIDER,
  manyVariables,
  richDraft,
  text,
} from "../../testing/prompt-fixtures.ts";

describeEachStore("updatePrompt", (use) => {
  it("changes only what is sent (200) and recomputes the variables", async () => {
    const h = use();
    const prompt = await createPrompt(h, { draft: richDraft });

    const titled = await h.request("PATCH", `/prompts/${prompt.id}`, { body: { title: "Renamed" } });
    expect(titled.status).toBe(200);
    expect(titled.body).toEqual({ ...prompt, title: "Renamed", updatedAt: titled.body.updatedAt });
    expect(titled.body.updatedAt).toBeGreaterThan(prompt.updatedAt);

    const icon = { type: "image", value: "https://example.com/i.png" };
    const iconed = await h.request("PATCH", `/prompts/${prompt.id}`, { body: { icon } });
    expect(iconed.body.icon).toEqual(icon);

    const messages = [{ role: "user", content: [text("Only {{topic}}"), imageUrl("{{topic}}")] }];
    const edited = await h.request("PATCH", `/prompts/${prompt.id}`, { body: { messages } });
    expect(edited.body.draft).toEqual({
      ...prompt.draft,
      messages,
      variables: { topic: { modality: "image" } },
    });
    expect(edited.body.title).toBe("Renamed");
    expect(edited.body.defaultPlayground).toBeUndefined();

    const tools = await h.request("PATCH", `/prompts/${prompt.id}`, { body: { tools: [] } });
    expect(tools.body.draft.tools).toEqual([]);
    expect(tools.body.draft.messages).toEqual(messages);

    const read = await h.request("GET", `/prompts/${prompt.id}`);
    expect(read.body).toEqual(tools.body);
    const draft = await h.request("GET", `/prompts/${prompt.id}/draft`);
    expect(draft.body).toEqual(tools.body.draft);
  });

  it("replaces the config as a whole: omitted keys become null and settings {}", async () => {
    const h = use();
    const prompt = await createPrompt(h, { draft: richDraft });
    const reply = await h.request("PATCH", `/prompts/${prompt.id}`, { body: { config: { model: "gpt-4o" } } });
    expect(reply.body.draft.config).toEqual({ provider: null, providerId: null, model: "gpt-4o", settings: {} });
    expect(reply.body.draft.messages).toEqual(richDraft.messages);
    const cleared = await h.request("PATCH", `/prompts/${prompt.id}`, {
      body: { config: { provider: "anthropic", model: null, settings: { maxTokens: 10 } } },
    });
    expect(cleared.body.draft.config).toEqual({
      provider: "anthropic",
      providerId: null,
      model: null,
      settings: { maxTokens: 10 },
    });
  });

  it("rejects an empty body, playgrounds, draft and other unknown fields, and bad values (400, nothing written)", async () => {
    const h = use();
    const prompt = await createPrompt(h, { title: "Kept" });
    const bad = [
      {},
      { playgrounds: [] },
      { draft: { messages: [] } },
      { variables: {} },
      { title: "" },
      { config: { settings: { topP: 2 } } },
      { title: "Changed", messages: manyVariables(101) },
    ];
    for (const body of bad) {
      await expectError(await h.request("PATCH", `/prompts/${prompt.id}`, { body }), 400, "VALIDATION_ERROR");
    }
    expect((await h.request("GET", `/prompts/${prompt.id}`)).body).toEqual(prompt);
  });

  it("answers 404 for a providerId not in the workspace and 400 for a provider that is not the record's kind", async () => {
    const h = use();
    const providerId = await createProviderRecord(h, "openai");
    const prompt = await createPrompt(h, { draft: richDraft });
    const path = `/prompts/${prompt.id}`;
    await expectError(
      await h.request("PATCH", path, { body: { config: { providerId: MISSING_PROVIDER } } }),
      404,
      "RESOURCE_NOT_FOUND",
    );
    const patched = await h.request("PATCH", path, { body: { config: { provider: "anthropic", providerId } } });
    await expectError(patched, 400, "VALIDATION_ERROR");
    expect(patched.body.error.details[0].field).toBe("config.provider");
    expect((await h.request("GET", path)).body).toEqual(prompt);
    const pinned = await h.request("PATCH", path, { body: { config: { providerId, model: "gpt-4o" } } });
    expect(pinned.body.draft.config).toEqual({ provider: "openai", providerId, model: "gpt-4o", settings: {} });
  });
});
