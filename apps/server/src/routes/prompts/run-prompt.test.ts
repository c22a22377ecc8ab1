import { afterAll, beforeAll, expect, it } from "vitest";
import { createEnvironment, deploy } from "../../testing/deployment-fixtures.ts";
import { expectError } from "../../testing/expect-error.ts";
import { type FakeProvider, startFakeProvider } from "../../testing/fake-provider.ts";
import { describeEachStore, type Harness } from "../../testing/harness.ts";
import { createPrompt, MISSING_PROMPT, text } from "../../testing/prompt-fixtures.ts";

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(async () => {
  await fake.close();
});

/** An OpenAI provider record on the fake and a prompt on it asking `{{question}}` of a support agent of `{{company}}`. */
async function runnablePrompt(h: Harness) {
  const provider = await h.request("POST", "/providers", {
    body: {
      provider: "openai",
      displayName: `Fake ${Math.random()}`,
      baseUrl: `${fake.url}/v1`,
      credentials: { apiKey: "sk-test" },
    },
  });
  expect(provider.status).toBe(201);
  const prompt = await createPrompt(h, {
    title: "Support",
    draft: {
      config: { provider: "openai", providerId: provider.body.id, model: "gpt-4o-mini", settings: {} },
      messages: [
        { role: "system", content: [text("You answer for {{company}}.")] },
        { role: "user", content: [text("{{question}}")] },
      ],
    },
  });
  return { prompt, providerId: provider.body.id as string };
}

const run = (h: Harness, promptId: string, body: unknown, key?: string) =>
  h.request("POST", `/prompts/${promptId}/run`, { body, key });

describeEachStore("runPrompt", (use) => {
  it("runs the draft with the values, answers with messages, usage, cost and latency, and logs the call as a trace", async () => {
    const h = use();
    fake.configure({ latencyMs: 0, fail: () => undefined });
    const { prompt, providerId } = await runnablePrompt(h);

    const reply = await run(h, prompt.id, {
      variables: { company: "Acme", question: "Where is order 8812?", unused: "x" },
    });

    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toEqual({
      messages: [{ role: "assistant", content: [text("Echo: Where is order 8812?")] }],
      text: "Echo: Where is order 8812?",
      // The fake counts words: 6 in the request (both messages), 5 in the answer.
      usage: { inputTokens: expect.any(Number), outputTokens: 5, totalTokens: expect.any(Number) },
      cost: expect.any(Number),
      latencyMs: expect.any(Number),
      provider: "openai",
      providerId,
      model: "gpt-4o-mini",
      deploymentId: null,
      traceId: expect.stringMatching(/^trace_/),
      spanId: expect.stringMatching(/^span_/),
    });
    const { usage } = reply.body;
    expect(usage.totalTokens).toBe(usage.inputTokens + usage.outputTokens);
    // gpt-4o-mini: $0.15 / $0.60 per million tokens.
    expect(reply.body.cost).toBeCloseTo((usage.inputTokens * 0.15 + usage.outputTokens * 0.6) / 1e6, 12);
    const sent = fake.requests.at(-1)?.body as any;
    expect(sent.messages).toEqual([
      { role: "system", content: "You answer for Acme." },
      { role: "user", content: "Where is order 8812?" },
    ]);

    const traces = await h.request("POST", "/logs/traces", { body: { projectId: h.projectId } });
    const trace = traces.body.traces.find((item: any) => item.id === reply.body.traceId);
    expect(trace).toMatchObject({
      name: "playground",
      status: "success",
      tags: ["playground"],
      totalInputTokens: usage.inputTokens,
      totalOutputTokens: usage.outputTokens,
      spanIds: [reply.body.spanId],
    });
    expect(trace.totalCost).toBeCloseTo(reply.body.cost, 12);
    const spans = await h.request("POST", "/logs/spans", {
      body: { projectId: h.projectId, logTraceId: reply.body.traceId },
    });
    const [span] = spans.body.spans;
    expect(span).toMatchObject({ id: reply.body.spanId, promptId: prompt.id, status: "success" });
    expect(span.parsedContent).toMatchObject({
      type: "Model",
      provider: "openai",
      model: "gpt-4o-mini",
      variables: {
        company: { modality: "text", value: "Acme" },
        question: { modality: "text", value: "Where is order 8812?" },
      },
    });
  });

  it("runs a deployment's snapshot instead of the draft when deploymentId is given", async () => {
    const h = use();
    const { prompt } = await runnablePrompt(h);
    const deployment = await deploy(h, prompt.id, await createEnvironment(h));
    const edited = await h.request("PATCH", `/prompts/${prompt.id}`, {
      body: { messages: [{ role: "user", content: [text("Edited {{topic}}")] }] },
    });
    expect(edited.status).toBe(200);

    const reply = await run(h, prompt.id, {
      deploymentId: deployment.id,
      variables: { company: "Acme", question: "Deployed?" },
    });

    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.text).toBe("Echo: Deployed?");
    expect(reply.body.deploymentId).toBe(deployment.id);
  });

  it("400 naming every variable the values lack", async () => {
    const h = use();
    const { prompt } = await runnablePrompt(h);
    fake.reset();

    const reply = await run(h, prompt.id, { variables: { question: "Hi" } });

    await expectError(reply, 400, "VALIDATION_ERROR");
    expect(reply.body.error.details).toEqual([
      { field: "variables.company", issue: "is required: the prompt uses {{company}}" },
    ]);
    expect((await run(h, prompt.id, {})).body.error.details.map((detail: any) => detail.field)).toEqual([
      "variables.company",
      "variables.question",
    ]);
    expect(fake.requests).toHaveLength(0);
  });

  it("400 for a draft without a provider and model", async () => {
    const h = use();
    const prompt = await createPrompt(h, { draft: { messages: [{ role: "user", content: [text("Hi")] }] } });

    await expectError(await run(h, prompt.id, {}), 400, "VALIDATION_ERROR");
  });

  it("404 for an unknown prompt and for a deployment of another prompt", async () => {
    const h = use();
    const { prompt } = await runnablePrompt(h);
    const other = await runnablePrompt(h);
    const othersDeployment = await deploy(h, other.prompt.id, await createEnvironment(h));

    await expectError(await run(h, MISSING_PROMPT, {}), 404, "RESOURCE_NOT_FOUND");
    await expectError(
      await run(h, prompt.id, { deploymentId: othersDeployment.id, variables: { company: "A", question: "B" } }),
      404,
      "RESOURCE_NOT_FOUND",
    );
  });

  it("403 for read-only and ingest-only keys", async () => {
    const h = use();
    const { prompt } = await runnablePrompt(h);
    const body = { variables: { company: "A", question: "B" } };

    await expectError(await run(h, prompt.id, body, await h.newKey("read-only")), 403, "FORBIDDEN");
    await expectError(await run(h, prompt.id, body, await h.newKey("ingest-only")), 403, "FORBIDDEN");
  });

  it("409 when the provider record cannot be used", async () => {
    const h = use();
    const prompt = await createPrompt(h, {
      draft: {
        config: { provider: "anthropic", model: "claude-sonnet-4-5" },
        messages: [{ role: "user", content: [text("Hi")] }],
      },
    });

    const reply = await run(h, prompt.id, {});

    await expectError(reply, 409, "CONFLICT");
    expect(reply.body.error.message).toBe(
      'The prompt cannot run: no provider record of kind "anthropic" in the workspace: create one with POST /providers.',
    );
  });

  it("502 PROVIDER_ERROR quoting the provider when it fails after its retries; the failed call is logged", async () => {
    const h = use();
    const { prompt } = await runnablePrompt(h);
    fake.configure({ fail: () => ({ status: 503 }) });

    const reply = await run(h, prompt.id, { variables: { company: "A", question: "B" } });
    fake.configure({ fail: () => undefined });

    await expectError(reply, 502, "PROVIDER_ERROR");
    expect(reply.body.error.message).toMatch(
      /^The provider failed: openai returned 503 after 3 attempts: fake failure \(503\)\. The call is logged as trace trace_\w+\.$/,
    );
    const traceId = /trace_\w+/.exec(reply.body.error.message)?.[0];
    const traces = await h.request("POST", "/logs/traces", {
      body: { projectId: h.projectId, filters: [{ column: "status", operator: "equals", value: "failure" }] },
    });
    expect(traces.body.traces.map((trace: any) => trace.id)).toContain(traceId);
  });
});
