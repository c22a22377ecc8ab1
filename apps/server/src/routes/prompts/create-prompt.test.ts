import { expect, it } from "vitest";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";
import {
  createPrompt,
  createProviderRecord,
  MISSING_PROVIDER,
  manyVariables,
  newProject,
  richDraft,
  tool,
} from "../../testing/prompt-fixtures.ts";

describeEachStore("createPrompt", (use) => {
  it("creates a prompt (201) with the defaults: Untitled prompt, 📝, empty draft, null config", async () => {
    const h = use();
    const reply = await h.request("POST", "/prompts", { body: { projectId: h.projectId } });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({
      id: expect.stringMatching(/^prompt_[0-9A-Z]{26}$/),
      title: "Untitled prompt",
      icon: { type: "emoji", value: "📝" },
      projectId: h.projectId,
      createdAt: expect.any(Number),
      updatedAt: reply.body.createdAt,
      defaultPlaygroundId: expect.stringMatching(/^playground_[0-9A-Z]{26}$/),
      draft: {
        config: { provider: null, providerId: null, model: null, settings: {} },
        messages: [],
        tools: [],
        variables: {},
      },
      contentLinks: {},
    });
  });

  it("seeds the draft, derives variables from text, image and PDF URLs, and fills in tool requests", async () => {
    const h = use();
    const prompt = await createPrompt(h, { title: "Orders", icon: { type: "emoji", value: "📦" }, draft: richDraft });
    expect(prompt).toMatchObject({ title: "Orders", icon: { type: "emoji", value: "📦" } });
    expect(prompt.defaultPlayground).toBeUndefined();
    expect(prompt.draft).toEqual({
      config: {
        provider: "openai",
        providerId: null,
        model: "gpt-4o-mini",
        settings: { temperature: 0.2, reasoningEffort: "low" },
      },
      messages: richDraft.messages,
      tools: [{ ...tool, request: null }],
      variables: {
        company: { modality: "text" },
        question: { modality: "text" },
        photo: { modality: "image" },
        doc: { modality: "pdf" },
      },
    });
  });

  it("stores an omitted draft part empty and a partial config with nulls; a providerId gives the provider", async () => {
    const h = use();
    const providerId = await createProviderRecord(h, "anthropic");
    const prompt = await createPrompt(h, { draft: { config: { model: "m1", providerId } } });
    expect(prompt.draft).toEqual({
      config: { provider: "anthropic", providerId, model: "m1", settings: {} },
      messages: [],
      tools: [],
      variables: {},
    });
    expect((await createPrompt(h, { draft: { config: { provider: "anthropic", providerId } } })).draft.config).toEqual({
      provider: "anthropic",
      providerId,
      model: null,
      settings: {},
    });
  });

  it("answers 404 for a providerId not in the workspace and 400 for a provider that is not the record's kind", async () => {
    const h = use();
    const providerId = await createProviderRecord(h, "openai");
    const foreign = await createProviderRecord(h, "openai", (await h.otherWorkspace()).key);
    for (const missing of [MISSING_PROVIDER, foreign]) {
      const reply = await h.request("POST", "/prompts", {
        body: { projectId: h.projectId, draft: { config: { providerId: missing } } },
      });
      await expectError(reply, 404, "RESOURCE_NOT_FOUND");
    }
    const mismatch = await h.request("POST", "/prompts", {
      body: { projectId: h.projectId, draft: { config: { provider: "anthropic", providerId } } },
    });
    await expectError(mismatch, 400, "VALIDATION_ERROR");
    expect(mismatch.body.error.details[0].field).toBe("draft.config.provider");
  });

  it("accepts 100 variables and rejects a draft whose messages use more (400, nothing written)", async () => {
    const h = use();
    const ok = await createPrompt(h, { draft: { messages: manyVariables(100) } });
    expect(Object.keys(ok.draft.variables)).toHaveLength(100);
    const project = await newProject(h);
    const reply = await h.request("POST", "/prompts", {
      body: { projectId: project, draft: { messages: manyVariables(101) } },
    });
    await expectError(reply, 400, "VALIDATION_ERROR");
    expect(reply.body.error.details[0].field).toBe("draft.messages");
    const list = await h.request("GET", `/prompts?projectId=${project}`);
    expect(list.body.prompts).toEqual([]);
  });
});
