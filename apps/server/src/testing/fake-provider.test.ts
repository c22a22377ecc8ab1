import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeProvider, startFakeProvider } from "./fake-provider.ts";

let fake: FakeProvider;
beforeEach(async () => {
  fake = await startFakeProvider({ models: ["model-a", "model-b"] });
});
afterEach(async () => {
  await fake.close();
});

function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${fake.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

const CHAT = {
  model: "gpt-4o-mini",
  messages: [
    { role: "system", content: "Be brief." },
    { role: "user", content: [{ type: "text", text: "Hello there" }] },
  ],
};

describe("fake provider", () => {
  it("lists the configured models in the OpenAI shape", async () => {
    const response = await fetch(`${fake.url}/v1/models`);

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      object: "list",
      data: [
        { id: "model-a", object: "model", created: 1_700_000_000, owned_by: "fake-provider" },
        { id: "model-b", object: "model", created: 1_700_000_000, owned_by: "fake-provider" },
      ],
    });
  });

  it("lists models in the Anthropic shape when asked with an anthropic-version header", async () => {
    const response = await fetch(`${fake.url}/v1/models`, { headers: { "anthropic-version": "2023-06-01" } });

    expect(await response.json()).toMatchObject({
      data: [
        { type: "model", id: "model-a", display_name: "model-a" },
        { type: "model", id: "model-b", display_name: "model-b" },
      ],
      has_more: false,
    });
  });

  it("answers a chat completion by echoing the last user message, with word-count usage", async () => {
    const response = await post("/v1/chat/completions", CHAT);

    expect(await response.json()).toMatchObject({
      object: "chat.completion",
      model: "gpt-4o-mini",
      choices: [{ index: 0, message: { role: "assistant", content: "Echo: Hello there" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 4, completion_tokens: 3, total_tokens: 7 },
    });
  });

  it("answers an Anthropic message with content blocks, stop_reason and usage", async () => {
    const response = await post("/v1/messages", {
      model: "claude-sonnet-4-5",
      max_tokens: 100,
      system: [{ type: "text", text: "Be brief." }],
      messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }],
    });

    expect(await response.json()).toMatchObject({
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5",
      content: [{ type: "text", text: "Echo: Hi" }],
      stop_reason: "end_turn",
      usage: { input_tokens: 3, output_tokens: 2 },
    });
  });

  it("records every request with its headers and parsed body", async () => {
    await post("/v1/chat/completions", CHAT, { authorization: "Bearer k" });

    expect(fake.requests).toEqual([
      {
        method: "POST",
        path: "/v1/chat/completions",
        headers: expect.objectContaining({ authorization: "Bearer k" }),
        body: CHAT,
      },
    ]);
  });

  it("answers structured-output requests with the verdict", async () => {
    fake.configure({ verdict: (request) => ({ grade: "fail", score: 0.25, reason: `judged ${request.model}` }) });

    const response = await post("/v1/chat/completions", {
      ...CHAT,
      response_format: { type: "json_schema", json_schema: { name: "verdict", schema: {} } },
    });

    const body = (await response.json()) as any;
    expect(JSON.parse(body.choices[0].message.content)).toEqual({
      grade: "fail",
      score: 0.25,
      reason: "judged gpt-4o-mini",
    });
  });

  it("injects failures with a retry-after-ms header and the vendor's error shape", async () => {
    fake.configure({ fail: () => ({ status: 429 }) });

    const openai = await post("/v1/chat/completions", CHAT);
    const anthropic = await post("/v1/messages", { model: "claude-sonnet-4-5", messages: [] });

    expect(openai.status).toBe(429);
    expect(openai.headers.get("retry-after-ms")).toBe("1");
    expect(await openai.json()).toMatchObject({ error: { message: "fake failure (429)" } });
    expect(await anthropic.json()).toMatchObject({ type: "error", error: { message: "fake failure (429)" } });
  });

  it("counts requests answered at the same time", async () => {
    fake.configure({ latencyMs: 30 });

    await Promise.all([1, 2, 3].map(() => post("/v1/chat/completions", CHAT)));

    expect(fake.maxInFlight).toBe(3);
    expect(fake.inFlight).toBe(0);
    fake.reset();
    expect(fake.maxInFlight).toBe(0);
    expect(fake.requests).toEqual([]);
  });

  it("streams Chat Completions as server-sent events: the text in pieces, the finish reason, the usage asked for", async () => {
    const response = await post("/v1/chat/completions", {
      ...CHAT,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const events = (await response.text()).split("\n\n").filter(Boolean);
    expect(events.at(-1)).toBe("data: [DONE]");
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event.replace(/^data: /, "")));
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("");
    expect(text).toBe("Echo: Hello there");
    expect(chunks.filter((chunk) => chunk.choices[0]?.delta.content).length).toBeGreaterThan(1);
    expect(chunks.at(-2).choices[0]).toMatchObject({ finish_reason: "stop" });
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 4, completion_tokens: 3 } });
  });

  it("refuses streamed Anthropic messages and unknown routes", async () => {
    const messages = { model: "claude-3-5-haiku", max_tokens: 50, messages: [{ role: "user", content: "Hi" }] };
    expect((await post("/v1/messages", { ...messages, stream: true })).status).toBe(400);
    expect((await post("/v1/responses", CHAT)).status).toBe(404);
  });
});
