/** Prompts through the client, every response validated against the spec. */
import { type PharosClient, paginate, unwrap } from "@pharos/client";
import type { components } from "@pharos/contract";
import { beforeAll, describe, expect, it } from "vitest";
import { errorMatrixOf, itProvokedEveryDocumentedStatus, type Send } from "./cases.ts";
import { fullDraft, newDataset, newProject, newPrompt, newProvider, runTag, text, unknownId } from "./fixtures.ts";
import { expectError, expectStatus } from "./replies.ts";
import { useTarget } from "./target.ts";

type Prompt = components["schemas"]["Prompt"];

const use = useTarget();
const itAnswersTheErrorMatrix = errorMatrixOf(use, () => projectId);
const run = runTag();

/** Reads a prompt: what a refused change must leave as it was. */
const readPrompt = (id: () => string) => async (client: PharosClient) =>
  unwrap(await client.GET("/prompts/{promptId}", { params: { path: { promptId: id() } } }));

let projectId: string;
/** A prompt with the full draft, for reads. */
let prompt: Prompt;
beforeAll(async () => {
  const { client } = use();
  projectId = (await newProject(client, `Prompts ${run}`)).id;
  prompt = await newPrompt(client, projectId, { title: `Support ${run}`, draft: fullDraft });
});

describe("listPrompts", () => {
  const send: Send = (client, extra, id = projectId) =>
    client.GET("/prompts", { params: { query: { projectId: id } }, ...extra });

  it("200: lists the project's prompts as summaries and pages through them", async () => {
    const { client } = use();
    const listProject = (await newProject(client, `List ${run}`)).id;
    const ids = [];
    for (const title of ["a", "b", "c"]) ids.push((await newPrompt(client, listProject, { title })).id);
    const first = await client.GET("/prompts", { params: { query: { projectId: listProject, limit: 2 } } });
    expectStatus(first, 200);
    expect(first.data?.pagination).toMatchObject({ limit: 2, returned: 2, hasMore: true });
    expect(first.data?.prompts[0]).not.toHaveProperty("draft");
    const all = [];
    for await (const p of paginate(client, "GET", "/prompts", {
      params: { query: { projectId: listProject, limit: 2, sort: "createdAt:asc" } },
    })) {
      all.push(p.id);
    }
    expect(all).toEqual(ids);
  });

  it("400 VALIDATION_ERROR without projectId, for a short projectId, a page size over 200 and a bad sort; 400 INVALID_CURSOR for a bad cursor", async () => {
    const { client } = use();
    for (const query of [{}, { projectId: "project_short" }, { projectId, limit: 201 }, { projectId, sort: "title" }]) {
      expectError(await client.GET("/prompts", { params: { query } } as never), 400, "VALIDATION_ERROR");
    }
    expectError(
      await client.GET("/prompts", { params: { query: { projectId, cursor: "garbage" } } }),
      400,
      "INVALID_CURSOR",
    );
  });

  itAnswersTheErrorMatrix({ access: "read", send, unknown: "project" });
});

describe("createPrompt", () => {
  const send: Send = (client, extra, id = projectId) => client.POST("/prompts", { body: { projectId: id }, ...extra });

  it("201: creates a prompt from its project alone, with the documented defaults", async () => {
    const created = await use().client.POST("/prompts", { body: { projectId } });
    expectStatus(created, 201);
    expect(created.data).toMatchObject({
      title: "Untitled prompt",
      icon: { type: "emoji", value: "📝" },
      projectId,
      draft: { config: { provider: null, providerId: null, model: null, settings: {} }, messages: [], tools: [] },
      contentLinks: {},
    });
    expect(created.data).not.toHaveProperty("defaultPlayground");
  });

  it("201: seeds the draft and derives its variables from the placeholders", async () => {
    const created = await use().client.POST("/prompts", {
      body: {
        projectId,
        title: "Seeded",
        draft: {
          ...fullDraft,
          messages: [
            ...fullDraft.messages,
            {
              role: "user",
              content: [{ modality: "image", detail: "auto", value: { type: "url", url: "https://x.test/{{photo}}" } }],
            },
          ],
        },
      },
    });
    expectStatus(created, 201);
    expect(created.data?.draft.variables).toEqual({
      product: { modality: "text" },
      question: { modality: "text" },
      photo: { modality: "image" },
    });
    expect(created.data?.draft.config).toMatchObject({ provider: "openai", model: "gpt-4o-mini" });
  });

  it("400 VALIDATION_ERROR for a missing or short projectId, a bad title or icon, an unknown field, a bad provider name, setting, role, tool or content modality", async () => {
    const { client } = use();
    const bodies = [
      {},
      { projectId: "project_short" },
      { projectId, title: "" },
      { projectId, title: "x".repeat(51) },
      { projectId, icon: { type: "svg", value: "x" } },
      { projectId, extra: 1 },
      { projectId, draft: { variables: { a: { modality: "text" } } } },
      { projectId, draft: { config: { provider: "OpenAI" } } },
      { projectId, draft: { config: { settings: { temperature: 3 } } } },
      { projectId, draft: { config: { region: "eu" } } },
      { projectId, draft: { messages: [{ role: "robot", content: [] }] } },
      { projectId, draft: { messages: [{ role: "user", content: [{ modality: "video", value: "x" }] }] } },
      { projectId, draft: { tools: [{ type: "function", definition: { schema: { name: "f" } } }] } },
    ];
    for (const body of bodies) {
      expectError(await client.POST("/prompts", { body: body as never }), 400, "VALIDATION_ERROR");
    }
  });

  it("400 VALIDATION_ERROR for settings over 50 keys and tool parameters over 64 keys", async () => {
    const { client } = use();
    const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
    const settings = await client.POST("/prompts", {
      body: { projectId, draft: { config: { settings: keys(51) } } },
    });
    expectError(settings, 400, "VALIDATION_ERROR");
    const tool = { type: "function", definition: { schema: { name: "f", description: "d", parameters: keys(65) } } };
    const parameters = await client.POST("/prompts", { body: { projectId, draft: { tools: [tool] } } as never });
    expectError(parameters, 400, "VALIDATION_ERROR");
    expectStatus(
      await client.POST("/prompts", { body: { projectId, draft: { config: { settings: keys(50) } } } }),
      201,
    );
  });

  it("400 VALIDATION_ERROR for a settings key of 0 or over 64 characters", async () => {
    const { client } = use();
    for (const key of ["", "k".repeat(65)]) {
      const reply = await client.POST("/prompts", {
        body: { projectId, draft: { config: { settings: { [key]: 1 } } } },
      });
      expectError(reply, 400, "VALIDATION_ERROR");
    }
  });

  it("404 RESOURCE_NOT_FOUND for an unknown providerId", async () => {
    const providerId = unknownId("provider");
    const reply = await use().client.POST("/prompts", { body: { projectId, draft: { config: { providerId } } } });
    expectError(reply, 404, "RESOURCE_NOT_FOUND");
  });

  it("201 with the provider of the providerId's record; 400 VALIDATION_ERROR for a different provider", async () => {
    const { client } = use();
    const record = await newProvider(client, { provider: "anthropic", displayName: `Prompts ${run}` });
    const config = (provider?: string) => ({ providerId: record.id, model: "claude-haiku-4-5", provider });
    const pinned = await client.POST("/prompts", { body: { projectId, draft: { config: config() } } });
    expectStatus(pinned, 201);
    expect(pinned.data?.draft.config).toMatchObject({ provider: "anthropic", providerId: record.id });
    const mismatch = await client.POST("/prompts", { body: { projectId, draft: { config: config("openai") } } });
    expectError(mismatch, 400, "VALIDATION_ERROR");
  });

  itAnswersTheErrorMatrix({ access: "write", send, unknown: "project", body: true });
});

describe("getPrompt", () => {
  const send: Send = (client, extra, id = prompt.id) =>
    client.GET("/prompts/{promptId}", { params: { path: { promptId: id } }, ...extra });

  it("200: reads the prompt with its draft, without the playground unless expanded", async () => {
    const { client } = use();
    const read = await send(client, {});
    expectStatus(read, 200);
    expect(read.data).toEqual(prompt);
    const expanded = await client.GET("/prompts/{promptId}", {
      params: { path: { promptId: prompt.id }, query: { expand: "playground" } },
    });
    expectStatus(expanded, 200);
    expect(expanded.data).toMatchObject({ id: prompt.id, defaultPlayground: { id: prompt.defaultPlaygroundId } });
  });

  it("200: reduces the body to the named fields, always with id", async () => {
    const { client } = use();
    const some = await client.GET("/prompts/{promptId}", {
      params: { path: { promptId: prompt.id }, query: { fields: "title,draft" } },
    });
    expectStatus(some, 200);
    expect(some.data).toEqual({ id: prompt.id, title: prompt.title, draft: prompt.draft });
    const playground = await client.GET("/prompts/{promptId}", {
      params: { path: { promptId: prompt.id }, query: { fields: "defaultPlayground", expand: "playground" } },
    });
    expect(Object.keys(playground.data ?? {}).sort()).toEqual(["defaultPlayground", "id"]);
  });

  it("400 VALIDATION_ERROR for an unknown field, for defaultPlayground without expand and for a short id", async () => {
    const { client } = use();
    const path = { promptId: prompt.id };
    for (const query of [{ fields: "title,colour" }, { fields: "defaultPlayground" }, { expand: "history" }]) {
      const reply = await client.GET("/prompts/{promptId}", { params: { path, query } as never });
      expectError(reply, 400, "VALIDATION_ERROR");
    }
    const short = await client.GET("/prompts/{promptId}", { params: { path: { promptId: "prompt_1" } } });
    expectError(short, 400, "VALIDATION_ERROR");
  });

  itAnswersTheErrorMatrix({ access: "read", send, unknown: "prompt" });
});

describe("updatePrompt", () => {
  let target: Prompt;
  beforeAll(async () => {
    target = await newPrompt(use().client, projectId, { title: `Editable ${run}`, draft: fullDraft });
  });
  const send: Send = (client, extra, id = target.id) =>
    client.PATCH("/prompts/{promptId}", {
      params: { path: { promptId: id } },
      body: { title: `Edited ${run}` },
      ...extra,
    });

  it("200: changes only the parts given", async () => {
    const { client } = use();
    const path = { promptId: target.id };
    const renamed = await client.PATCH("/prompts/{promptId}", { params: { path }, body: { title: "Renamed" } });
    expectStatus(renamed, 200);
    expect(renamed.data).toMatchObject({ title: "Renamed", draft: target.draft });
    const messages = [{ role: "user" as const, content: [text("Hello {{name}}")] }];
    const rewritten = await client.PATCH("/prompts/{promptId}", { params: { path }, body: { messages } });
    expectStatus(rewritten, 200);
    expect(rewritten.data?.title).toBe("Renamed");
    expect(rewritten.data?.draft).toEqual({ ...target.draft, messages, variables: { name: { modality: "text" } } });
    expect(rewritten.data).not.toHaveProperty("defaultPlayground");
  });

  it("400 VALIDATION_ERROR for an empty update, for `playgrounds` and for a bad part", async () => {
    const { client } = use();
    const path = { promptId: target.id };
    for (const body of [{}, { playgrounds: [] }, { title: "" }, { tools: [{ type: "function" }] }]) {
      const reply = await client.PATCH("/prompts/{promptId}", { params: { path }, body: body as never });
      expectError(reply, 400, "VALIDATION_ERROR");
    }
  });

  it("404 RESOURCE_NOT_FOUND for an unknown providerId", async () => {
    const provider = await use().client.PATCH("/prompts/{promptId}", {
      params: { path: { promptId: target.id } },
      body: { config: { providerId: unknownId("provider") } },
    });
    expectError(provider, 404, "RESOURCE_NOT_FOUND");
  });

  const unchanged = readPrompt(() => target.id);
  itAnswersTheErrorMatrix({ access: "write", send, unknown: "prompt", body: true, unchanged });
});

describe("deletePrompt", () => {
  const remove = (promptId: string) => use().client.DELETE("/prompts/{promptId}", { params: { path: { promptId } } });
  let victim: Prompt;
  beforeAll(async () => {
    victim = await newPrompt(use().client, projectId, { title: `Doomed ${run}` });
  });
  const send: Send = (client, extra, id = victim.id) =>
    client.DELETE("/prompts/{promptId}", { params: { path: { promptId: id } }, ...extra });

  it("204: deletes the prompt; reading it afterwards is 404", async () => {
    const doomed = await newPrompt(use().client, projectId, { title: "Short-lived" });
    const deleted = await remove(doomed.id);
    expectStatus(deleted, 204);
    expect(deleted.data).toBeUndefined();
    const read = await use().client.GET("/prompts/{promptId}", { params: { path: { promptId: doomed.id } } });
    expectError(read, 404, "RESOURCE_NOT_FOUND");
    expectError(await remove(doomed.id), 404, "RESOURCE_NOT_FOUND");
  });

  it("409 CONFLICT while a prompt column of a dataset refers to the prompt", async () => {
    const { client } = use();
    const referenced = await newPrompt(client, projectId, { title: "Referenced" });
    const dataset = await newDataset(client, projectId, {
      title: `Refers ${run}`,
      columns: [{ name: "answer", type: "prompt", settings: { promptId: referenced.id } }],
    });
    expectError(await remove(referenced.id), 409, "CONFLICT");
    const column = dataset.columns[0];
    if (!column) throw new Error("the dataset has no column");
    unwrap(
      await client.DELETE("/datasets/{datasetId}/columns/{columnId}", {
        params: { path: { datasetId: dataset.id, columnId: column.id } },
      }),
    );
    expectStatus(await remove(referenced.id), 204);
  });

  itAnswersTheErrorMatrix({ access: "write", send, unknown: "prompt", unchanged: readPrompt(() => victim.id) });
});

describe("getPromptDraft", () => {
  const send: Send = (client, extra, id = prompt.id) =>
    client.GET("/prompts/{promptId}/draft", { params: { path: { promptId: id } }, ...extra });

  it("200: returns the draft as getPrompt shows it", async () => {
    const read = await send(use().client, {});
    expectStatus(read, 200);
    expect(read.data).toEqual(prompt.draft);
  });

  itAnswersTheErrorMatrix({ access: "read", send, unknown: "prompt" });
});

itProvokedEveryDocumentedStatus(use, [
  "listPrompts",
  "createPrompt",
  "getPrompt",
  "updatePrompt",
  "deletePrompt",
  "getPromptDraft",
]);
