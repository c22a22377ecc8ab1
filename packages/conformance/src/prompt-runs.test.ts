/**
 * Playground runs (runPrompt) through the client, every response validated against the spec: an answer, each
 * refusal the operation documents, and a provider failure (502). The prompt runs on a provider record pointed
 * at the fake provider, a real HTTP server on loopback in the kit's process.
 */
import { type FakeProvider, startFakeProvider } from "@pharos/server/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorMatrixOf, itProvokedEveryDocumentedStatus, type Send } from "./cases.ts";
import { newProject, newPrompt, newProvider, runTag, type Schemas, text } from "./fixtures.ts";
import { expectError, expectStatus } from "./replies.ts";
import { useTarget } from "./target.ts";

const use = useTarget();
const tag = runTag();
const itAnswersTheErrorMatrix = errorMatrixOf(use, () => projectId);
let fake: FakeProvider;
let projectId: string;
let prompt: Schemas["Prompt"];

beforeAll(async () => {
  fake = await startFakeProvider();
  const { client } = use();
  projectId = (await newProject(client, `Runs ${tag}`)).id;
  const provider = await newProvider(client, {
    provider: "openai-compatible",
    displayName: `Fake ${tag}`,
    baseUrl: `${fake.url}/v1`,
  });
  prompt = await newPrompt(client, projectId, {
    title: `Playground ${tag}`,
    draft: {
      config: { provider: "openai-compatible", providerId: provider.id, model: "fake-model" },
      messages: [{ role: "user", content: [text("{{question}}")] }],
    },
  });
});
afterAll(async () => {
  await fake.close();
});

describe("runPrompt", () => {
  const send: Send = (client, extra, id = prompt.id) =>
    client.POST("/prompts/{promptId}/run", {
      params: { path: { promptId: id } },
      body: { variables: { question: "Is it shipped?" } },
      ...extra,
    });

  it("200: the answer with usage, cost and latency, and the trace it was logged as", async () => {
    const reply = await send(use().client, {});
    expectStatus(reply, 200);
    expect(reply.data).toMatchObject({ text: "Echo: Is it shipped?", model: "fake-model", deploymentId: null });
  });

  it("400 VALIDATION_ERROR naming a missing variable, and for a draft without a provider and model", async () => {
    const { client } = use();
    const missing = await client.POST("/prompts/{promptId}/run", {
      params: { path: { promptId: prompt.id } },
      body: {},
    });
    expectError(missing, 400, "VALIDATION_ERROR");
    expect((missing.error as Schemas["Error"]).error.details?.[0]?.field).toBe("variables.question");
    const bare = await newPrompt(client, projectId, { title: `Bare ${tag}` });
    expectError(
      await client.POST("/prompts/{promptId}/run", { params: { path: { promptId: bare.id } }, body: {} }),
      400,
      "VALIDATION_ERROR",
    );
  });

  it("409 CONFLICT when the provider record the prompt names is gone", async () => {
    const { client } = use();
    const gone = await newProvider(client, {
      provider: "openai-compatible",
      displayName: `Gone ${tag}`,
      baseUrl: `${fake.url}/v1`,
    });
    const orphan = await newPrompt(client, projectId, {
      title: `Orphan ${tag}`,
      draft: {
        config: { provider: "openai-compatible", providerId: gone.id, model: "m" },
        messages: [{ role: "user", content: [text("Hi")] }],
      },
    });
    expectStatus(await client.DELETE("/providers/{providerId}", { params: { path: { providerId: gone.id } } }), 204);
    expectError(
      await client.POST("/prompts/{promptId}/run", { params: { path: { promptId: orphan.id } }, body: {} }),
      409,
      "CONFLICT",
    );
  });

  it("502 PROVIDER_ERROR when the provider fails after its retries", async () => {
    fake.configure({ fail: () => ({ status: 500 }) });
    try {
      expectError(await send(use().client, {}), 502, "PROVIDER_ERROR");
    } finally {
      fake.configure({ fail: () => undefined });
    }
  });

  itAnswersTheErrorMatrix({ access: "write", send, unknown: "prompt", hidden: true, body: true });
});

itProvokedEveryDocumentedStatus(use, ["runPrompt"]);
