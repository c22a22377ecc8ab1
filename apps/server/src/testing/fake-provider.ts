import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A fake LLM vendor on loopback for tests: OpenAI Chat Completions (`POST /v1/chat/completions`, also streamed as
 * server-sent events when asked with `stream: true`), Anthropic Messages (`POST /v1/messages`, not streamed) and
 * model listing (`GET /v1/models`), answering in the wire format the AI SDK providers parse. Base URL for every
 * provider kind: `${url}/v1`.
 */

/** One request as received. Header names are lower-case. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** Parsed JSON body; null for a request without one. */
  body: unknown;
}

/** What the behaviour callbacks see: the request plus what the fake read from it. */
export interface FakeRequest extends RecordedRequest {
  /** Which vendor API was called (model listing: Anthropic when the request has an `anthropic-version` header). */
  protocol: "openai" | "anthropic";
  /** The body's `model`, "" when absent. */
  model: string;
  /** Text of the last user message, text parts joined by newlines. */
  lastUserText: string;
  /** Whether the call asks for structured output (then `verdict` answers it instead of `reply`). */
  structured: boolean;
}

/** A plain text answer, or tool calls (with optional text before them). */
export type FakeReply = string | { text?: string; toolCalls: Array<{ name: string; input: Record<string, unknown> }> };

/** A judge's answer. Any grade/score may be given, to test answers outside the schema. */
export interface FakeVerdict {
  grade: string;
  score: number;
  reason: string;
}

export interface FakeFailure {
  status: number;
  /** JSON body; defaults to the vendor's error shape with message `fake failure (<status>)`. */
  body?: unknown;
}

export interface FakeBehaviour {
  /** Delay before every answer (failures included). */
  latencyMs: number;
  /** The answer to an ordinary call. Default: "Echo: " + the last user message's text. */
  reply(request: FakeRequest): FakeReply;
  /**
   * The answer to a structured-output call; a string is sent as the raw answer text (to test garbage).
   * Default: pass / score 1 when the judged output (inside `<output>` tags) is not blank, else fail / 0.
   */
  verdict(request: FakeRequest): FakeVerdict | string;
  /** An error to answer with instead (sent with `retry-after-ms: 1`). Default: none. */
  fail(request: FakeRequest): FakeFailure | undefined;
  /** Model ids listed by `GET /v1/models`. */
  models: string[];
}

export interface FakeProvider {
  /** http://127.0.0.1:<port>; the API base URL is `${url}/v1`. */
  url: string;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** Requests being answered right now. */
  readonly inFlight: number;
  /** The most requests ever answered at the same time (since start or reset). */
  readonly maxInFlight: number;
  configure(behaviour: Partial<FakeBehaviour>): void;
  /** Forgets recorded requests and the in-flight maximum; the behaviour stays. */
  reset(): void;
  close(): Promise<void>;
}

const DEFAULT_BEHAVIOUR: FakeBehaviour = {
  latencyMs: 0,
  reply: (request) => `Echo: ${request.lastUserText}`,
  verdict: (request) => {
    const judged = /<output>\n([\s\S]*)\n<\/output>/.exec(request.lastUserText)?.[1] ?? request.lastUserText;
    return judged.trim() === ""
      ? { grade: "fail", score: 0, reason: "The output is empty." }
      : { grade: "pass", score: 1, reason: "The output is not empty." };
  },
  fail: () => undefined,
  models: ["gpt-4o-mini", "gpt-4o"],
};

/** Fixed creation time of listed models, so listings are deterministic. */
const MODEL_CREATED_SECONDS = 1_700_000_000;

export async function startFakeProvider(behaviour: Partial<FakeBehaviour> = {}): Promise<FakeProvider> {
  let current: FakeBehaviour = { ...DEFAULT_BEHAVIOUR, ...behaviour };
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let inFlight = 0;
  let maxInFlight = 0;
  let nextId = 1;

  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      const text = await readBody(req);
      const recorded: RecordedRequest = {
        method: req.method ?? "",
        path: (req.url ?? "").split("?")[0] ?? "",
        headers: headersOf(req),
        body: null,
      };
      requests.push(recorded);
      if (text !== "") {
        try {
          recorded.body = JSON.parse(text);
        } catch {
          return send(res, 400, errorBody("openai", "the body is not JSON"));
        }
      }
      const request = describe(recorded);
      const behaviour = current;
      if (behaviour.latencyMs > 0) await wait(behaviour.latencyMs);

      const failure = behaviour.fail(request);
      if (failure) {
        const body = failure.body ?? errorBody(request.protocol, `fake failure (${failure.status})`);
        return send(res, failure.status, body, { "retry-after-ms": "1" });
      }
      const id = nextId++;
      const route = `${recorded.method} ${recorded.path}`;
      if (route === "GET /v1/models") return send(res, 200, modelList(request.protocol, behaviour.models));
      if (route !== "POST /v1/chat/completions" && route !== "POST /v1/messages") {
        return send(res, 404, errorBody(request.protocol, `no route ${route}`));
      }
      const streamed = isRecord(recorded.body) && recorded.body.stream === true;
      if (streamed && request.protocol !== "openai") {
        return send(res, 400, errorBody(request.protocol, "the fake provider streams Chat Completions only"));
      }
      const answer = request.structured ? { structured: behaviour.verdict(request) } : behaviour.reply(request);
      const inputTokens = countWords(messageTexts(recorded.body).join(" "));
      if (streamed)
        return sendEvents(res, openaiChunks(openaiCompletion(id, request, answer, inputTokens), recorded.body));
      return send(
        res,
        200,
        request.protocol === "openai"
          ? openaiCompletion(id, request, answer, inputTokens)
          : anthropicMessage(id, request, answer, inputTokens),
      );
    } finally {
      inFlight--;
    }
  }

  const server = createServer((req, res) => {
    req.on("error", () => {});
    res.on("error", () => {});
    handle(req, res).catch((error: unknown) => send(res, 500, errorBody("openai", String(error))));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    configure(behaviour) {
      // A key given as undefined goes back to its default.
      const entries = Object.entries(behaviour).map(([key, value]) => [
        key,
        value === undefined ? DEFAULT_BEHAVIOUR[key as keyof FakeBehaviour] : value,
      ]);
      current = { ...current, ...Object.fromEntries(entries) };
    },
    reset() {
      requests.length = 0;
      maxInFlight = inFlight;
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

/** A structured answer: a verdict object, or raw text (for garbage) that is sent as is. */
type StructuredAnswer = { structured: FakeVerdict | string };

function describe(recorded: RecordedRequest): FakeRequest {
  const body = isRecord(recorded.body) ? recorded.body : {};
  const protocol =
    recorded.path === "/v1/messages" || (recorded.path === "/v1/models" && "anthropic-version" in recorded.headers)
      ? "anthropic"
      : "openai";
  return {
    ...recorded,
    protocol,
    model: typeof body.model === "string" ? body.model : "",
    lastUserText: lastUserText(body),
    structured: protocol === "openai" ? asksOpenaiStructured(body) : anthropicStructuredMode(body) !== null,
  };
}

/** The AI SDK asks Chat Completions for structured output with `response_format` (json_schema or json_object). */
function asksOpenaiStructured(body: Record<string, unknown>): boolean {
  const format = body.response_format;
  return isRecord(format) && (format.type === "json_schema" || format.type === "json_object");
}

/**
 * How the AI SDK asks Anthropic for structured output: `output_config.format` (native structured output, answered
 * as JSON text) on models that support it, otherwise a tool named `json` that the model must use (answered with a
 * tool_use block).
 */
function anthropicStructuredMode(body: Record<string, unknown>): "output-format" | "json-tool" | null {
  const outputConfig = body.output_config;
  if (isRecord(outputConfig) && isRecord(outputConfig.format) && outputConfig.format.type === "json_schema") {
    return "output-format";
  }
  const tools = Array.isArray(body.tools) ? body.tools.filter(isRecord) : [];
  const choice = body.tool_choice;
  const forced = isRecord(choice) && (choice.type === "any" || (choice.type === "tool" && choice.name === "json"));
  return forced && tools.some((tool) => tool.name === "json") ? "json-tool" : null;
}

function openaiCompletion(id: number, request: FakeRequest, answer: FakeReply | StructuredAnswer, inputTokens: number) {
  let content: string | null;
  let toolCalls: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }> | undefined;
  if (typeof answer === "string") {
    content = answer;
  } else if ("structured" in answer) {
    content = verdictText(answer.structured);
  } else {
    content = answer.text ?? null;
    toolCalls = answer.toolCalls.map((call, index) => ({
      id: `call_fake_${id}_${index}`,
      type: "function",
      function: { name: call.name, arguments: JSON.stringify(call.input) },
    }));
  }
  const outputTokens = countWords(
    [content ?? "", ...(toolCalls ?? []).map((call) => call.function.arguments)].join(" "),
  );
  return {
    id: `chatcmpl-fake-${id}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: request.model,
    choices: [
      {
        index: 0,
        message: { role: "assistant", content, refusal: null, ...(toolCalls && { tool_calls: toolCalls }) },
        logprobs: null,
        finish_reason: toolCalls ? "tool_calls" : "stop",
      },
    ],
    usage: { prompt_tokens: inputTokens, completion_tokens: outputTokens, total_tokens: inputTokens + outputTokens },
  };
}

type ChatCompletion = ReturnType<typeof openaiCompletion>;

/**
 * A completion as the chunks OpenAI streams: the role and the text, each tool call, the finish reason, and the
 * usage in a last chunk with no choices when `stream_options.include_usage` asks for it.
 */
function openaiChunks(completion: ChatCompletion, body: unknown): unknown[] {
  const choice = completion.choices[0] as ChatCompletion["choices"][number];
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    id: completion.id,
    object: "chat.completion.chunk",
    created: completion.created,
    model: completion.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  });
  const text = choice.message.content ?? "";
  // The text in two pieces, so that a client really assembles it.
  const cut = Math.ceil(text.length / 2);
  const chunks: unknown[] = [chunk({ role: "assistant", content: text.slice(0, cut) })];
  if (text.length > cut) chunks.push(chunk({ content: text.slice(cut) }));
  (choice.message.tool_calls ?? []).forEach((call, index) => {
    chunks.push(chunk({ tool_calls: [{ index, ...call }] }));
  });
  chunks.push(chunk({}, choice.finish_reason));
  const options = isRecord(body) && isRecord(body.stream_options) ? body.stream_options : {};
  if (options.include_usage === true) {
    chunks.push({
      id: completion.id,
      object: "chat.completion.chunk",
      created: completion.created,
      model: completion.model,
      choices: [],
      usage: completion.usage,
    });
  }
  return chunks;
}

function sendEvents(res: ServerResponse, chunks: readonly unknown[]): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const chunk of chunks) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
  res.end("data: [DONE]\n\n");
}

function anthropicMessage(
  id: number,
  request: FakeRequest,
  answer: FakeReply | StructuredAnswer,
  inputTokens: number,
): unknown {
  const content: unknown[] = [];
  let stopReason = "end_turn";
  if (typeof answer === "string") {
    content.push({ type: "text", text: answer });
  } else if ("structured" in answer) {
    const body = isRecord(request.body) ? request.body : {};
    if (anthropicStructuredMode(body) === "json-tool") {
      content.push({ type: "tool_use", id: `toolu_fake_${id}`, name: "json", input: answer.structured });
      stopReason = "tool_use";
    } else {
      content.push({ type: "text", text: verdictText(answer.structured) });
    }
  } else {
    if (answer.text !== undefined) content.push({ type: "text", text: answer.text });
    answer.toolCalls.forEach((call, index) => {
      content.push({ type: "tool_use", id: `toolu_fake_${id}_${index}`, name: call.name, input: call.input });
    });
    stopReason = "tool_use";
  }
  return {
    id: `msg_fake_${id}`,
    type: "message",
    role: "assistant",
    model: request.model,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: { input_tokens: inputTokens, output_tokens: countWords(answerTexts(content).join(" ")) },
  };
}

/** Texts of Anthropic content blocks, tool inputs as JSON: what output tokens are counted from. */
function answerTexts(content: unknown[]): string[] {
  return content
    .filter(isRecord)
    .map((block) => (typeof block.text === "string" ? block.text : JSON.stringify(block.input)));
}

function verdictText(verdict: FakeVerdict | string): string {
  return typeof verdict === "string" ? verdict : JSON.stringify(verdict);
}

function modelList(protocol: "openai" | "anthropic", models: string[]): unknown {
  if (protocol === "anthropic") {
    const createdAt = new Date(MODEL_CREATED_SECONDS * 1000).toISOString();
    return {
      data: models.map((id) => ({ type: "model", id, display_name: id, created_at: createdAt })),
      has_more: false,
      first_id: models[0] ?? null,
      last_id: models.at(-1) ?? null,
    };
  }
  return {
    object: "list",
    data: models.map((id) => ({ id, object: "model", created: MODEL_CREATED_SECONDS, owned_by: "fake-provider" })),
  };
}

function errorBody(protocol: "openai" | "anthropic", message: string): unknown {
  return protocol === "anthropic"
    ? { type: "error", error: { type: "fake_error", message } }
    : { error: { message, type: "fake_error", param: null, code: null } };
}

function lastUserText(body: Record<string, unknown>): string {
  const messages = Array.isArray(body.messages) ? body.messages.filter(isRecord) : [];
  const lastUser = messages.filter((message) => message.role === "user").at(-1);
  return lastUser ? textsOf(lastUser.content).join("\n") : "";
}

/** Every text in the request's messages (and Anthropic's top-level system prompt). */
function messageTexts(body: unknown): string[] {
  if (!isRecord(body)) return [];
  const messages = Array.isArray(body.messages) ? body.messages.filter(isRecord) : [];
  return [...textsOf(body.system), ...messages.flatMap((message) => textsOf(message.content))];
}

/** Texts of a content value: a string, or an array of parts with a `text` field. */
function textsOf(content: unknown): string[] {
  if (typeof content === "string") return [content];
  if (!Array.isArray(content)) return [];
  return content.filter(isRecord).flatMap((part) => (typeof part.text === "string" ? [part.text] : []));
}

function countWords(text: string): number {
  return text.split(/\s+/).filter((word) => word !== "").length;
}

function headersOf(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
