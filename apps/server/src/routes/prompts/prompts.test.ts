import { expect, it } from "vitest";
import { describeEachStore, type Harness } from "../../testing/harness.ts";
import {
  expectError,
  itHidesOtherWorkspaces,
  itRejectsMalformedJson,
  itRejectsMissingAndInvalidKeys,
} from "../../testing/shared-cases.ts";

const MISSING_PROMPT = `prompt_${"0".repeat(26)}`;
const MISSING_PROJECT = `project_${"0".repeat(26)}`;
const MISSING_PROVIDER = `provider_${"0".repeat(26)}`;

const text = (value: string) => ({ modality: "text", value });
const imageUrl = (url: string) => ({ modality: "image", detail: "auto", value: { type: "url", url } });
const pdfUrl = (url: string) => ({ modality: "pdf", value: { type: "url", url }, file: { name: "a.pdf", id: "a" } });
const tool = {
  type: "function",
  definition: { schema: { name: "get_order_status", description: "Look up an order." } },
};

const richDraft = {
  config: { provider: "openai", model: "gpt-4o-mini", settings: { temperature: 0.2, reasoningEffort: "low" } },
  messages: [
    { role: "system", content: [text("You work for {{company}}.")] },
    {
      role: "user",
      content: [
        text("{{question}} about {{company}}"),
        imageUrl("https://img.example.com/{{photo}}"),
        pdfUrl("{{doc}}"),
      ],
    },
  ],
  tools: [tool],
};

let providerCount = 0;

async function createProviderRecord(h: Harness, provider: string, key?: string): Promise<string> {
  const reply = await h.request("POST", "/providers", {
    body: { provider, displayName: `Provider ${++providerCount}` },
    key,
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.id;
}

async function createPrompt(h: Harness, body: Record<string, unknown> = {}, key?: string) {
  const reply = await h.request("POST", "/prompts", { body: { projectId: h.projectId, ...body }, key });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body;
}

async function newProject(h: Harness) {
  return (await h.request("POST", "/projects", { body: { title: "Another" } })).body.id as string;
}

/** A message using `count` distinct variables. */
const manyVariables = (count: number) => [
  { role: "user", content: [text(Array.from({ length: count }, (_, i) => `{{v${i}}}`).join(" "))] },
];

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

  it("rejects invalid bodies with 400 VALIDATION_ERROR", async () => {
    const h = use();
    const bad = [
      {},
      { projectId: "project_short" },
      { projectId: h.projectId, title: "" },
      { projectId: h.projectId, title: "x".repeat(51) },
      { projectId: h.projectId, icon: { type: "svg", value: "x" } },
      { projectId: h.projectId, extra: 1 },
      { projectId: h.projectId, draft: { variables: { a: { modality: "text" } } } },
      { projectId: h.projectId, draft: { config: { provider: "OpenAI" } } },
      { projectId: h.projectId, draft: { config: { settings: { temperature: 3 } } } },
      { projectId: h.projectId, draft: { config: { region: "eu" } } },
      { projectId: h.projectId, draft: { messages: [{ role: "robot", content: [] }] } },
      { projectId: h.projectId, draft: { messages: [{ role: "user", content: [{ modality: "video", value: "x" }] }] } },
      { projectId: h.projectId, draft: { tools: [{ type: "function", definition: { schema: { name: "f" } } }] } },
    ];
    for (const body of bad) {
      await expectError(await h.request("POST", "/prompts", { body }), 400, "VALIDATION_ERROR");
    }
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

  it("answers 404 for an unknown project", async () => {
    const h = use();
    await expectError(
      await h.request("POST", "/prompts", { body: { projectId: MISSING_PROJECT } }),
      404,
      "RESOURCE_NOT_FOUND",
    );
  });

  it("answers 403 to read-only and ingest-only keys and to a key restricted to other projects", async () => {
    const h = use();
    const other = await newProject(h);
    const restricted = await h.newKey("full", [other]);
    for (const key of [await h.newKey("read-only"), await h.newKey("ingest-only"), restricted]) {
      await expectError(
        await h.request("POST", "/prompts", { key, body: { projectId: h.projectId } }),
        403,
        "FORBIDDEN",
      );
    }
    expect((await h.request("POST", "/prompts", { key: restricted, body: { projectId: other } })).status).toBe(201);
  });

  itRejectsMissingAndInvalidKeys(use, {
    method: "POST",
    path: () => "/prompts",
    body: (h) => ({ projectId: h.projectId }),
  });
  itHidesOtherWorkspaces(use, { method: "POST", path: () => "/prompts", body: (h) => ({ projectId: h.projectId }) });
  itRejectsMalformedJson(use, { method: "POST", path: () => "/prompts" });
});

describeEachStore("listPrompts", (use) => {
  it("lists a project's prompts as summaries, newest first, with cursor pagination, sort and created range", async () => {
    const h = use();
    const project = await newProject(h);
    const ids: string[] = [];
    for (const title of ["a", "b", "c"]) ids.push((await createPrompt(h, { projectId: project, title })).id);
    await createPrompt(h, { title: "elsewhere" });

    const first = await h.request("GET", `/prompts?projectId=${project}&limit=2`);
    expect(first.status).toBe(200);
    expect(first.body.pagination).toMatchObject({ limit: 2, returned: 2, hasMore: true });
    expect(first.body.prompts.map((p: { title: string }) => p.title)).toEqual(["c", "b"]);
    expect(Object.keys(first.body.prompts[0]).sort()).toEqual(
      ["createdAt", "icon", "id", "projectId", "title", "updatedAt"].sort(),
    );
    const second = await h.request(
      "GET",
      `/prompts?projectId=${project}&limit=2&cursor=${first.body.pagination.nextCursor}`,
    );
    expect(second.body.prompts.map((p: { id: string }) => p.id)).toEqual([ids[0]]);
    expect(second.body.pagination).toMatchObject({ returned: 1, hasMore: false, nextCursor: null });

    const asc = await h.request("GET", `/prompts?projectId=${project}&sort=createdAt:asc`);
    expect(asc.body.prompts.map((p: { id: string }) => p.id)).toEqual(ids);
    const middle = asc.body.prompts[1].createdAt;
    const range = await h.request(
      "GET",
      `/prompts?projectId=${project}&createdAfter=${middle}&createdBefore=${middle}`,
    );
    expect(range.body.prompts.map((p: { id: string }) => p.id)).toEqual([ids[1]]);
  });

  it("rejects a cursor of another project's list with 400 INVALID_CURSOR", async () => {
    const h = use();
    const project = await newProject(h);
    await createPrompt(h, { projectId: project });
    await createPrompt(h, { projectId: project });
    const page = await h.request("GET", `/prompts?projectId=${project}&limit=1`);
    await expectError(
      await h.request("GET", `/prompts?projectId=${h.projectId}&limit=1&cursor=${page.body.pagination.nextCursor}`),
      400,
      "INVALID_CURSOR",
    );
    await expectError(await h.request("GET", `/prompts?projectId=${project}&cursor=nonsense`), 400, "INVALID_CURSOR");
  });

  it("rejects a missing or malformed projectId and bad paging parameters with 400", async () => {
    const h = use();
    for (const query of [
      "",
      "projectId=short",
      `projectId=${h.projectId}&limit=201`,
      `projectId=${h.projectId}&sort=title`,
    ]) {
      await expectError(await h.request("GET", `/prompts?${query}`), 400, "VALIDATION_ERROR");
    }
  });

  it("answers 404 for an unknown project and 403 to a key restricted to other projects or ingest-only", async () => {
    const h = use();
    await expectError(await h.request("GET", `/prompts?projectId=${MISSING_PROJECT}`), 404, "RESOURCE_NOT_FOUND");
    const restricted = await h.newKey("full", [await newProject(h)]);
    await expectError(
      await h.request("GET", `/prompts?projectId=${h.projectId}`, { key: restricted }),
      403,
      "FORBIDDEN",
    );
    const ingest = await h.newKey("ingest-only");
    await expectError(await h.request("GET", `/prompts?projectId=${h.projectId}`, { key: ingest }), 403, "FORBIDDEN");
    const readOnly = await h.newKey("read-only");
    expect((await h.request("GET", `/prompts?projectId=${h.projectId}`, { key: readOnly })).status).toBe(200);
  });

  itRejectsMissingAndInvalidKeys(use, { method: "GET", path: (h) => `/prompts?projectId=${h.projectId}` });
  itHidesOtherWorkspaces(use, { method: "GET", path: (h) => `/prompts?projectId=${h.projectId}` });
});

describeEachStore("getPrompt", (use) => {
  it("returns the prompt as created (200)", async () => {
    const h = use();
    const prompt = await createPrompt(h, { draft: richDraft });
    const read = await h.request("GET", `/prompts/${prompt.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(prompt);
  });

  it("adds the default playground with expand=playground: copied from the initial draft, never changed", async () => {
    const h = use();
    const prompt = await createPrompt(h, { draft: richDraft });
    const playground = {
      id: prompt.defaultPlaygroundId,
      title: "Playground",
      messages: richDraft.messages,
      variables: prompt.draft.variables,
    };
    const read = await h.request("GET", `/prompts/${prompt.id}?expand=playground`);
    expect(read.body).toEqual({ ...prompt, defaultPlayground: playground });

    await h.request("PATCH", `/prompts/${prompt.id}`, {
      body: { messages: [{ role: "user", content: [text("{{x}}")] }] },
    });
    const after = await h.request("GET", `/prompts/${prompt.id}?expand=playground`);
    expect(after.body.draft.variables).toEqual({ x: { modality: "text" } });
    expect(after.body.defaultPlayground).toEqual(playground);
  });

  it("reduces the response to the named fields, always with id", async () => {
    const h = use();
    const prompt = await createPrompt(h, { title: "Selective" });
    const some = await h.request("GET", `/prompts/${prompt.id}?fields=title,updatedAt,title`);
    expect(some.status).toBe(200);
    expect(some.body).toEqual({ id: prompt.id, title: "Selective", updatedAt: prompt.updatedAt });
    const draftOnly = await h.request("GET", `/prompts/${prompt.id}?fields=draft,contentLinks`);
    expect(draftOnly.body).toEqual({ id: prompt.id, draft: prompt.draft, contentLinks: {} });
    const withPlayground = await h.request("GET", `/prompts/${prompt.id}?fields=defaultPlayground&expand=playground`);
    expect(withPlayground.body).toEqual({
      id: prompt.id,
      defaultPlayground: { id: prompt.defaultPlaygroundId, title: "Playground", messages: [], variables: {} },
    });
    const expandedNotNamed = await h.request("GET", `/prompts/${prompt.id}?fields=id&expand=playground`);
    expect(expandedNotNamed.body).toEqual({ id: prompt.id });
  });

  it("answers 400 to defaultPlayground without expand=playground, unknown field names, a bad expand or id", async () => {
    const h = use();
    const prompt = await createPrompt(h);
    const noExpand = await h.request("GET", `/prompts/${prompt.id}?fields=id,defaultPlayground`);
    await expectError(noExpand, 400, "VALIDATION_ERROR");
    expect(noExpand.body.error.details[0].field).toBe("query.fields");
    for (const query of ["fields=name", "fields=id,%20title", "fields=", "fields=id,,title", "expand=draft"]) {
      await expectError(await h.request("GET", `/prompts/${prompt.id}?${query}`), 400, "VALIDATION_ERROR");
    }
    await expectError(await h.request("GET", "/prompts/prompt_short"), 400, "VALIDATION_ERROR");
  });

  it("answers 404 for an unknown prompt and 403 to restricted and ingest-only keys", async () => {
    const h = use();
    await expectError(await h.request("GET", `/prompts/${MISSING_PROMPT}`), 404, "RESOURCE_NOT_FOUND");
    const prompt = await createPrompt(h);
    const restricted = await h.newKey("full", [await newProject(h)]);
    await expectError(await h.request("GET", `/prompts/${prompt.id}`, { key: restricted }), 403, "FORBIDDEN");
    await expectError(
      await h.request("GET", `/prompts/${prompt.id}`, { key: await h.newKey("ingest-only") }),
      403,
      "FORBIDDEN",
    );
    expect((await h.request("GET", `/prompts/${prompt.id}`, { key: await h.newKey("read-only") })).status).toBe(200);
  });

  itRejectsMissingAndInvalidKeys(use, { method: "GET", path: async (h) => `/prompts/${(await createPrompt(h)).id}` });
  itHidesOtherWorkspaces(use, { method: "GET", path: async (h) => `/prompts/${(await createPrompt(h)).id}` });
});

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

  it("answers 404 for an unknown prompt and 403 to read-only, ingest-only and restricted keys", async () => {
    const h = use();
    await expectError(
      await h.request("PATCH", `/prompts/${MISSING_PROMPT}`, { body: { title: "x" } }),
      404,
      "RESOURCE_NOT_FOUND",
    );
    const prompt = await createPrompt(h);
    const restricted = await h.newKey("full", [await newProject(h)]);
    for (const key of [await h.newKey("read-only"), await h.newKey("ingest-only"), restricted]) {
      await expectError(
        await h.request("PATCH", `/prompts/${prompt.id}`, { key, body: { title: "x" } }),
        403,
        "FORBIDDEN",
      );
    }
  });

  itRejectsMissingAndInvalidKeys(use, {
    method: "PATCH",
    path: async (h) => `/prompts/${(await createPrompt(h)).id}`,
    body: () => ({ title: "x" }),
  });
  itHidesOtherWorkspaces(use, {
    method: "PATCH",
    path: async (h) => `/prompts/${(await createPrompt(h)).id}`,
    body: () => ({ title: "x" }),
  });
  itRejectsMalformedJson(use, { method: "PATCH", path: async (h) => `/prompts/${(await createPrompt(h)).id}` });
});

/** A dataset of the harness's workspace, written directly: fixtures for the rules that involve datasets. */
async function insertDataset(h: Harness) {
  const now = h.now();
  const id = `dataset_${String(now).padStart(26, "0")}`;
  await h.store.db
    .insertInto("datasets")
    .values({
      id,
      workspaceId: h.workspaceId,
      projectId: h.projectId,
      title: "d",
      icon: JSON.stringify({ type: "emoji", value: "🧪" }),
      description: "",
      rowCount: 0,
      createdAt: now,
      updatedAt: now,
    })
    .execute();
  return id;
}

async function insertPromptColumn(h: Harness, datasetId: string, promptId: string, name: string) {
  const now = h.now();
  const id = `column_${String(now).padStart(26, "0")}`;
  await h.store.db
    .insertInto("datasetColumns")
    .values({
      id,
      datasetId,
      name,
      type: "prompt",
      settings: JSON.stringify({ promptId }),
      position: 0,
      createdAt: now,
      updatedAt: now,
    })
    .execute();
  return id;
}

describeEachStore("deletePrompt", (use) => {
  it("deletes the prompt (204, no body) with its draft, playground, deployments and evaluators", async () => {
    const h = use();
    const prompt = await createPrompt(h, { draft: richDraft });
    const env = await h.request("POST", `/projects/${h.projectId}/deployment-environments`, { body: { name: "prod" } });
    const deployment = await h.request("POST", `/prompts/${prompt.id}/deployments`, {
      body: { deploymentEnvironmentId: env.body.id },
    });
    expect(deployment.status).toBe(201);
    const datasetId = await insertDataset(h);
    const now = h.now();
    await h.store.db
      .insertInto("evaluators")
      .values({
        id: `evaluator_${String(now).padStart(26, "0")}`,
        workspaceId: h.workspaceId,
        projectId: h.projectId,
        promptId: prompt.id,
        datasetId,
        title: "judge",
        config: JSON.stringify({ type: "llm-as-a-judge", value: "ok?" }),
        status: "active",
        createdAt: now,
        updatedAt: now,
      })
      .execute();
    const keeper = await createPrompt(h);

    const reply = await h.request("DELETE", `/prompts/${prompt.id}`);
    expect(reply.status).toBe(204);
    expect(reply.body).toBe("");
    expect(reply.headers.get("X-Request-Id")).toMatch(/^[0-9a-f-]{36}$/);

    await expectError(await h.request("GET", `/prompts/${prompt.id}`), 404, "RESOURCE_NOT_FOUND");
    await expectError(await h.request("GET", `/prompts/${prompt.id}/draft`), 404, "RESOURCE_NOT_FOUND");
    await expectError(
      await h.request("GET", `/deployments?promptId=${prompt.id}&deploymentId=${deployment.body.id}`),
      404,
      "RESOURCE_NOT_FOUND",
    );
    const left = async (table: "deployments" | "evaluators") =>
      (await h.store.db.selectFrom(table).select("id").where("promptId", "=", prompt.id).execute()).length;
    expect(await left("deployments")).toBe(0);
    expect(await left("evaluators")).toBe(0);
    await expectError(await h.request("DELETE", `/prompts/${prompt.id}`), 404, "RESOURCE_NOT_FOUND");
    expect((await h.request("GET", `/prompts/${keeper.id}`)).status).toBe(200);
  });

  it("answers 409 CONFLICT while a dataset prompt column refers to the prompt, then deletes once it is gone", async () => {
    const h = use();
    const prompt = await createPrompt(h);
    const other = await createPrompt(h);
    const datasetId = await insertDataset(h);
    await insertPromptColumn(h, datasetId, other.id, "other prompt");
    const columnId = await insertPromptColumn(h, datasetId, prompt.id, "answer");

    await expectError(await h.request("DELETE", `/prompts/${prompt.id}`), 409, "CONFLICT");
    expect((await h.request("GET", `/prompts/${prompt.id}`)).status).toBe(200);

    await h.store.db.deleteFrom("datasetColumns").where("id", "=", columnId).execute();
    expect((await h.request("DELETE", `/prompts/${prompt.id}`)).status).toBe(204);
  });

  it("answers 404 for an unknown prompt and 403 to read-only, ingest-only and restricted keys", async () => {
    const h = use();
    await expectError(await h.request("DELETE", `/prompts/${MISSING_PROMPT}`), 404, "RESOURCE_NOT_FOUND");
    await expectError(await h.request("DELETE", "/prompts/prompt_short"), 400, "VALIDATION_ERROR");
    const prompt = await createPrompt(h);
    const restricted = await h.newKey("full", [await newProject(h)]);
    for (const key of [await h.newKey("read-only"), await h.newKey("ingest-only"), restricted]) {
      await expectError(await h.request("DELETE", `/prompts/${prompt.id}`, { key }), 403, "FORBIDDEN");
    }
    expect((await h.request("GET", `/prompts/${prompt.id}`)).status).toBe(200);
  });

  itRejectsMissingAndInvalidKeys(use, {
    method: "DELETE",
    path: async (h) => `/prompts/${(await createPrompt(h)).id}`,
  });
  itHidesOtherWorkspaces(use, { method: "DELETE", path: async (h) => `/prompts/${(await createPrompt(h)).id}` });
});

describeEachStore("getPromptDraft", (use) => {
  it("returns the draft (200), the same object as draft in getPrompt", async () => {
    const h = use();
    const prompt = await createPrompt(h, { draft: richDraft });
    const reply = await h.request("GET", `/prompts/${prompt.id}/draft`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(prompt.draft);
  });

  it("answers 404 for an unknown prompt, 400 for a malformed id, 403 to restricted and ingest-only keys", async () => {
    const h = use();
    await expectError(await h.request("GET", `/prompts/${MISSING_PROMPT}/draft`), 404, "RESOURCE_NOT_FOUND");
    await expectError(await h.request("GET", "/prompts/prompt_short/draft"), 400, "VALIDATION_ERROR");
    const prompt = await createPrompt(h);
    const restricted = await h.newKey("full", [await newProject(h)]);
    await expectError(await h.request("GET", `/prompts/${prompt.id}/draft`, { key: restricted }), 403, "FORBIDDEN");
    await expectError(
      await h.request("GET", `/prompts/${prompt.id}/draft`, { key: await h.newKey("ingest-only") }),
      403,
      "FORBIDDEN",
    );
    const readOnly = await h.newKey("read-only");
    expect((await h.request("GET", `/prompts/${prompt.id}/draft`, { key: readOnly })).status).toBe(200);
  });

  itRejectsMissingAndInvalidKeys(use, {
    method: "GET",
    path: async (h) => `/prompts/${(await createPrompt(h)).id}/draft`,
  });
  itHidesOtherWorkspaces(use, { method: "GET", path: async (h) => `/prompts/${(await createPrompt(h)).id}/draft` });
});
