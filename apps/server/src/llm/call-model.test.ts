import type { schemas } from "@pharos/contract";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeProvider, startFakeProvider } from "../testing/fake-provider.ts";
import { callModel, ModelCallError } from "./call-model.ts";
import type { CallOptions, ModelTarget } from "./model-target.ts";

let fake: FakeProvider;
beforeEach(async () => {
  fake = await startFakeProvider();
});
afterEach(async () => {
  await fake.close();
});

const OPTIONS: CallOptions = { timeoutMs: 5000, maxRetries: 2 };

function targetFor(provider: ModelTarget["provider"], overrides: Partial<ModelTarget> = {}): ModelTarget {
  return {
    provider,
    baseUrl: `${fake.url}/v1`,
    apiKey: "sk-test",
    headers: { "X-Team": "search" },
    model: provider === "anthropic" ? "claude-sonnet-4-5" : "gpt-4o-mini",
    ...overrides,
  };
}

const text = (value: string): schemas.MessageContent => ({ modality: "text", value });

function ask(
  messages: schemas.PromptMessage[],
  extra: { tools?: schemas.PromptTool[]; settings?: schemas.PromptSettings } = {},
) {
  return { messages, tools: extra.tools ?? [], settings: extra.settings ?? {} };
}

const SIMPLE = ask([{ role: "user", content: [text("What is Pharos?")] }]);

/** The JSON body of the only request the fake received. */
function onlyBody(): any {
  expect(fake.requests).toHaveLength(1);
  return fake.requests[0]?.body;
}

async function callError(promise: Promise<unknown>): Promise<ModelCallError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ModelCallError);
  return error as ModelCallError;
}

describe.each([
  { provider: "openai" as const, path: "/v1/chat/completions", auth: ["authorization", "Bearer sk-test"] },
  { provider: "openai-compatible" as const, path: "/v1/chat/completions", auth: ["authorization", "Bearer sk-test"] },
  { provider: "anthropic" as const, path: "/v1/messages", auth: ["x-api-key", "sk-test"] },
])("callModel on $provider", ({ provider, path, auth }) => {
  it("sends the key the vendor's way, the extra credential headers and the model name", async () => {
    await callModel(targetFor(provider, { model: "my-model-1" }), SIMPLE, OPTIONS);

    const [request] = fake.requests;
    expect(request?.method).toBe("POST");
    expect(request?.path).toBe(path);
    expect(request?.headers[auth[0] as string]).toBe(auth[1]);
    expect(request?.headers["x-team"]).toBe("search");
    expect(onlyBody().model).toBe("my-model-1");
  });

  it("returns the text, the response as an assistant PromptMessage and the reported usage", async () => {
    fake.configure({ latencyMs: 20 });

    const result = await callModel(targetFor(provider), SIMPLE, OPTIONS);

    expect(result.text).toBe("Echo: What is Pharos?");
    expect(result.responseMessages).toEqual([{ role: "assistant", content: [text("Echo: What is Pharos?")] }]);
    // The fake counts words: 3 in the request, 4 in the answer.
    expect(result.inputTokens).toBe(3);
    expect(result.outputTokens).toBe(4);
    expect(result.latencyMs).toBeGreaterThanOrEqual(15);
  });

  it("maps temperature, maxTokens and topP and ignores keys it does not know", async () => {
    // Two calls: Anthropic's provider drops topP when temperature is set (newer models reject both).
    await callModel(
      targetFor(provider),
      ask(SIMPLE.messages, { settings: { temperature: 0.3, maxTokens: 77, reasoningEffort: "high" } }),
      OPTIONS,
    );
    await callModel(targetFor(provider), ask(SIMPLE.messages, { settings: { topP: 0.9 } }), OPTIONS);

    const [first, second] = fake.requests.map((request) => request.body as any);
    expect(first.temperature).toBe(0.3);
    expect(first.max_tokens).toBe(77);
    expect(first).not.toHaveProperty("reasoningEffort");
    expect(first).not.toHaveProperty("reasoning_effort");
    expect(second.top_p).toBe(0.9);
  });

  it("answers with tool calls when the model calls a tool", async () => {
    fake.configure({ reply: () => ({ toolCalls: [{ name: "get_order_status", input: { orderId: "A-1" } }] }) });
    const tool: schemas.PromptTool = {
      type: "function",
      definition: {
        schema: {
          name: "get_order_status",
          description: "Look up an order.",
          parameters: { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"] },
        },
      },
    };

    const result = await callModel(targetFor(provider), ask(SIMPLE.messages, { tools: [tool] }), OPTIONS);

    expect(result.text).toBe("");
    expect(result.responseMessages).toEqual([
      {
        role: "assistant",
        content: [
          {
            modality: "tool-call",
            index: 0,
            id: expect.any(String),
            name: "get_order_status",
            arguments: '{"orderId":"A-1"}',
          },
        ],
      },
    ]);
    const sentTools = JSON.stringify(onlyBody().tools);
    expect(sentTools).toContain("get_order_status");
    expect(sentTools).toContain("Look up an order.");
    expect(sentTools).toContain("orderId");
  });
});

describe("callModel: OpenAI Chat Completions messages", () => {
  it("maps penalties and sends system, user text and image parts (URL with detail, base64) as Chat Completions expects", async () => {
    await callModel(
      targetFor("openai"),
      ask(
        [
          { role: "system", content: [text("Be brief."), text("Be kind.")] },
          {
            role: "user",
            content: [
              text("Describe these:"),
              { modality: "image", detail: "low", value: { type: "url", url: "https://example.com/cat.png" } },
              {
                modality: "image",
                detail: "auto",
                value: { type: "base64", base64: "iVBORw0KGgo=", mediaType: "png" },
              },
            ],
          },
        ],
        { settings: { presencePenalty: 0.5, frequencyPenalty: -0.5 } },
      ),
      OPTIONS,
    );

    const body = onlyBody();
    expect(body.presence_penalty).toBe(0.5);
    expect(body.frequency_penalty).toBe(-0.5);
    expect(body.messages).toEqual([
      { role: "system", content: "Be brief.\nBe kind." },
      {
        role: "user",
        content: [
          { type: "text", text: "Describe these:" },
          { type: "image_url", image_url: { url: "https://example.com/cat.png", detail: "low" } },
          { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=", detail: "auto" } },
        ],
      },
    ]);
  });

  it("sends earlier tool calls and tool responses, and an inline PDF as a file part", async () => {
    await callModel(
      targetFor("openai"),
      ask([
        {
          role: "user",
          content: [
            text("Where is my order?"),
            {
              modality: "pdf",
              value: { type: "base64", base64: "JVBERi0xLjQK" },
              file: { name: "receipt.pdf", id: "f-1" },
            },
          ],
        },
        {
          role: "assistant",
          content: [{ modality: "tool-call", index: 0, id: "call_1", name: "lookup", arguments: '{"id":"A-1"}' }],
        },
        {
          role: "tool",
          content: [
            { modality: "tool-response", index: 0, id: "call_1", name: "lookup", data: '{"status":"shipped"}' },
          ],
        },
      ]),
      OPTIONS,
    );

    expect(onlyBody().messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "Where is my order?" },
          { type: "file", file: { filename: "receipt.pdf", file_data: "data:application/pdf;base64,JVBERi0xLjQK" } },
        ],
      },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_1", type: "function", function: { name: "lookup", arguments: '{"id":"A-1"}' } }],
      },
      { role: "tool", tool_call_id: "call_1", content: '{"status":"shipped"}' },
    ]);
  });
});

describe("callModel: Anthropic Messages", () => {
  it("sends the system prompt on its own, images and PDFs as blocks, and earlier thinking with its signature", async () => {
    await callModel(
      targetFor("anthropic"),
      ask([
        { role: "system", content: [text("Be brief.")] },
        {
          role: "user",
          content: [
            text("Read this:"),
            { modality: "image", detail: "high", value: { type: "url", url: "https://example.com/cat.png" } },
            {
              modality: "pdf",
              value: { type: "base64", base64: "JVBERi0xLjQK", mediaType: "pdf" },
              file: { name: "terms.pdf", id: "f-2", size: null },
            },
          ],
        },
        {
          role: "assistant",
          content: [
            { modality: "reasoning", value: { type: "thinking", thinking: "Let me see.", signature: "sig-1" } },
            text("Done."),
          ],
        },
        { role: "user", content: [text("Thanks")] },
      ]),
      OPTIONS,
    );

    const body = onlyBody();
    expect(body.system).toEqual([{ type: "text", text: "Be brief." }]);
    expect(body.messages[0].content).toEqual([
      { type: "text", text: "Read this:" },
      { type: "image", source: { type: "url", url: "https://example.com/cat.png" } },
      expect.objectContaining({
        type: "document",
        source: { type: "base64", media_type: "application/pdf", data: "JVBERi0xLjQK" },
      }),
    ]);
    expect(body.messages[1]).toEqual({
      role: "assistant",
      content: [
        { type: "thinking", thinking: "Let me see.", signature: "sig-1" },
        { type: "text", text: "Done." },
      ],
    });
  });
});

describe("callModel: credentials", () => {
  it("sends no Authorization header to an openai-compatible server without a key", async () => {
    await callModel(targetFor("openai-compatible", { apiKey: null }), SIMPLE, OPTIONS);

    expect(fake.requests[0]?.headers).not.toHaveProperty("authorization");
  });

  it.each(["openai", "anthropic"] as const)(
    "refuses to call %s without a key (never reads one from the environment)",
    async (provider) => {
      const error = await callError(callModel(targetFor(provider, { apiKey: null }), SIMPLE, OPTIONS));

      expect(error.message).toBe(`no credentials: the ${provider} provider has no API key`);
      expect(fake.requests).toHaveLength(0);
    },
  );

  it("refuses an openai-compatible target without a base URL", async () => {
    const error = await callError(callModel(targetFor("openai-compatible", { baseUrl: null }), SIMPLE, OPTIONS));

    expect(error.message).toBe("no base URL: an openai-compatible provider needs one");
  });
});

describe("callModel: failures", () => {
  it("retries a 429 and then succeeds", async () => {
    fake.configure({ fail: () => (fake.requests.length <= 2 ? { status: 429 } : undefined) });

    const result = await callModel(targetFor("openai"), SIMPLE, OPTIONS);

    expect(result.text).toBe("Echo: What is Pharos?");
    expect(fake.requests).toHaveLength(3);
  });

  it.each([
    { provider: "openai" as const, status: 500 },
    { provider: "anthropic" as const, status: 503 },
  ])(
    "gives up on $provider after maxRetries + 1 attempts with the status and the provider's message",
    async ({ provider, status }) => {
      fake.configure({ fail: () => ({ status }) });

      const error = await callError(callModel(targetFor(provider), SIMPLE, OPTIONS));

      expect(error.message).toBe(`${provider} returned ${status} after 3 attempts: fake failure (${status})`);
      expect(fake.requests).toHaveLength(3);
    },
  );

  it("does not retry a client error", async () => {
    fake.configure({ fail: () => ({ status: 401, body: { error: { message: "Incorrect API key provided" } } }) });

    const error = await callError(callModel(targetFor("openai"), SIMPLE, OPTIONS));

    expect(error.message).toBe("openai returned 401 after 1 attempt: Incorrect API key provided");
    expect(fake.requests).toHaveLength(1);
  });

  it("times out, retries included", async () => {
    fake.configure({ latencyMs: 50 });

    const error = await callError(callModel(targetFor("openai"), SIMPLE, { timeoutMs: 10, maxRetries: 2 }));

    expect(error.message).toBe("timed out after 10 ms");
  });

  it("stops when the caller aborts", async () => {
    fake.configure({ latencyMs: 50 });
    const controller = new AbortController();
    const call = callModel(targetFor("anthropic"), SIMPLE, { ...OPTIONS, signal: controller.signal });
    setTimeout(() => controller.abort(), 5);

    const error = await callError(call);

    expect(error.message).toBe("aborted");
  });

  it("reports a server that cannot be reached", async () => {
    const gone = `${fake.url}/v1`;
    await fake.close();

    const error = await callError(
      callModel(targetFor("openai", { baseUrl: gone }), SIMPLE, { timeoutMs: 5000, maxRetries: 0 }),
    );
    fake = await startFakeProvider();

    expect(error.message).toMatch(/^openai request failed after 1 attempt: /);
  });
});

describe("callModel: parts a model call cannot carry", () => {
  it.each<{ case: string; message: schemas.PromptMessage; reason: string }>([
    {
      case: "an error part",
      message: {
        role: "assistant",
        content: [{ modality: "error", value: { type: "response_error", value: { code: "x", message: "y" } } }],
      } as schemas.PromptMessage,
      reason: "message 2 (assistant): error content cannot be sent to a model in this role",
    },
    {
      case: "an image from the assistant",
      message: {
        role: "assistant",
        content: [{ modality: "image", detail: "auto", value: { type: "url", url: "https://example.com/a.png" } }],
      },
      reason: "message 2 (assistant): image content cannot be sent to a model in this role",
    },
    {
      case: "an image in a system message",
      message: {
        role: "system",
        content: [{ modality: "image", detail: "auto", value: { type: "url", url: "https://example.com/a.png" } }],
      },
      reason: "message 2 (system): image content cannot be sent to a model in this role",
    },
    {
      case: "text in a tool message",
      message: { role: "tool", content: [text("result")] },
      reason: "message 2 (tool): text content cannot be sent to a model in this role",
    },
    {
      case: "tool-call arguments that are not JSON",
      message: {
        role: "assistant",
        content: [{ modality: "tool-call", index: 0, id: "call_9", name: "f", arguments: "{oops" }],
      },
      reason: "message 2 (assistant): the arguments of tool call call_9 are not JSON",
    },
    {
      case: "an image URL that is not a URL",
      message: {
        role: "user",
        content: [{ modality: "image", detail: "auto", value: { type: "url", url: "{{photo}}" } }],
      },
      reason: "message 2 (user): image URL is not a valid URL: {{photo}}",
    },
  ])("refuses $case, naming it, without calling the provider", async ({ message, reason }) => {
    const error = await callError(
      callModel(targetFor("openai"), ask([SIMPLE.messages[0] as schemas.PromptMessage, message]), OPTIONS),
    );

    expect(error.message).toBe(reason);
    expect(fake.requests).toHaveLength(0);
  });
});
