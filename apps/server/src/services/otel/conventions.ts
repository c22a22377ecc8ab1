/**
 * The mapping of OTel span attributes to Pharos span content: which convention a span follows (OpenInference,
 * the Vercel AI SDK, OpenLLMetry, the OTel GenAI semantic conventions), its content type, and the attributes
 * each content field is read from. This is the one place the mapping lives; the spec's description of
 * exportOtelTraces documents it as tables (openapi/paths/otel_v1_traces.yaml): change both together.
 *
 * Every attribute a field is read from is taken out of the span's attributes (`AttributeReader.take`); all
 * others stay in the span's attributes, verbatim.
 */
import type { OtlpEvent, OtlpMap, OtlpValue } from "@pharos/otlp";

/** The content types a convention may choose. */
export type ContentType = "Model" | "Tool" | "Retrieval" | "Embeddings" | "Guardrail" | "Function" | "Other";

/** The span's attributes, with the keys read for content marked as used. */
export class AttributeReader {
  readonly used = new Set<string>();
  constructor(readonly attributes: OtlpMap) {}

  has(key: string): boolean {
    return this.attributes.has(key);
  }

  /** The value, without marking it used (for detecting a convention). */
  peek(key: string): OtlpValue | undefined {
    return this.attributes.get(key);
  }

  /** The value of the first key present, marking that key used. */
  take(...keys: string[]): OtlpValue | undefined {
    for (const key of keys) {
      if (this.attributes.has(key)) {
        this.used.add(key);
        return this.attributes.get(key);
      }
    }
    return undefined;
  }

  /** The first of `keys` that holds text (marking it used). */
  text(...keys: string[]): string | undefined {
    for (const key of keys) {
      const value = this.attributes.get(key);
      if (typeof value === "string") {
        this.used.add(key);
        return value;
      }
    }
    return undefined;
  }

  /** The first of `keys` that holds a non-negative number, or digits (marking it used). */
  count(...keys: string[]): number | undefined {
    for (const key of keys) {
      const value = this.attributes.get(key);
      const number = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : value;
      if (typeof number === "number" && Number.isFinite(number) && number >= 0) {
        this.used.add(key);
        return number;
      }
    }
    return undefined;
  }

  /**
   * Flattened lists (`prefix.N.rest`): entries grouped by N in ascending order, each a map of `rest` → value;
   * every key read is marked used.
   */
  indexed(prefix: string): Map<string, OtlpValue>[] {
    const byIndex = new Map<number, Map<string, OtlpValue>>();
    for (const [key, value] of this.attributes) {
      if (!key.startsWith(prefix)) continue;
      const match = /^(\d{1,6})\.(.+)$/.exec(key.slice(prefix.length));
      if (!match) continue;
      const index = Number(match[1]);
      const entry = byIndex.get(index) ?? new Map<string, OtlpValue>();
      entry.set(match[2] as string, value);
      byIndex.set(index, entry);
      this.used.add(key);
    }
    return [...byIndex].sort(([a], [b]) => a - b).map(([, entry]) => entry);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Which convention, which content type

const OPENINFERENCE_KINDS = new Map<string, ContentType>([
  ["LLM", "Model"],
  ["TOOL", "Tool"],
  ["RETRIEVER", "Retrieval"],
  ["EMBEDDING", "Embeddings"],
  ["GUARDRAIL", "Guardrail"],
  ["CHAIN", "Function"],
  ["AGENT", "Function"],
]);

const TRACELOOP_KINDS = new Map<string, ContentType>([
  ["tool", "Tool"],
  ["workflow", "Function"],
  ["task", "Function"],
  ["agent", "Function"],
]);

const GENAI_OPERATIONS = new Map<string, ContentType>([
  ["chat", "Model"],
  ["text_completion", "Model"],
  ["generate_content", "Model"],
  ["embeddings", "Embeddings"],
  ["execute_tool", "Tool"],
  ["invoke_agent", "Function"],
  ["create_agent", "Function"],
]);

/** The Vercel AI SDK's `ai.operationId`: the provider calls are Model spans, the calls around them Function. */
function aiSdkType(operationId: string): ContentType {
  if (/\.do(Generate|Stream)$/.test(operationId)) return "Model";
  if (operationId === "ai.toolCall") return "Tool";
  if (/^ai\.embed(Many)?\.doEmbed$/.test(operationId)) return "Embeddings";
  return "Function";
}

export type Convention = "openinference" | "ai-sdk" | "openllmetry" | "genai" | "none";

/** The first convention the span's attributes match, and the content type it gives. */
export function classify(reader: AttributeReader): { convention: Convention; type: ContentType } {
  const openInference = reader.peek("openinference.span.kind");
  if (typeof openInference === "string") {
    return { convention: "openinference", type: OPENINFERENCE_KINDS.get(openInference.toUpperCase()) ?? "Other" };
  }
  const aiOperation = reader.peek("ai.operationId");
  if (typeof aiOperation === "string") return { convention: "ai-sdk", type: aiSdkType(aiOperation) };
  const traceloop = reader.peek("traceloop.span.kind");
  if (typeof traceloop === "string" && TRACELOOP_KINDS.has(traceloop)) {
    return { convention: "openllmetry", type: TRACELOOP_KINDS.get(traceloop) as ContentType };
  }
  const operation = reader.peek("gen_ai.operation.name");
  if (typeof operation === "string") return { convention: "genai", type: GENAI_OPERATIONS.get(operation) ?? "Other" };
  if (reader.peek("llm.request.type") === "embedding") return { convention: "genai", type: "Embeddings" };
  const hasProvider = reader.has("gen_ai.provider.name") || reader.has("gen_ai.system");
  if (hasProvider && (reader.has("gen_ai.request.model") || reader.has("gen_ai.response.model"))) {
    return { convention: "genai", type: "Model" };
  }
  return { convention: "none", type: "Other" };
}

// ---------------------------------------------------------------------------------------------------------------
// Model fields

const PROVIDER_KEYS = ["gen_ai.provider.name", "gen_ai.system", "llm.provider", "llm.system", "ai.model.provider"];
const MODEL_KEYS = [
  "gen_ai.response.model",
  "gen_ai.request.model",
  "llm.model_name",
  "ai.response.model",
  "ai.model.id",
];
const INPUT_TOKEN_KEYS = [
  "gen_ai.usage.input_tokens",
  "gen_ai.usage.prompt_tokens",
  "llm.token_count.prompt",
  "ai.usage.inputTokens",
  "ai.usage.promptTokens",
];
const OUTPUT_TOKEN_KEYS = [
  "gen_ai.usage.output_tokens",
  "gen_ai.usage.completion_tokens",
  "llm.token_count.completion",
  "ai.usage.outputTokens",
  "ai.usage.completionTokens",
];
const TOTAL_TOKEN_KEYS = ["llm.token_count.total", "ai.usage.totalTokens", "llm.usage.total_tokens"];
const COST_KEYS = ["gen_ai.usage.cost", "llm.cost.total"];

type Role = "system" | "user" | "assistant" | "tool";
type Part = Record<string, unknown>;
export interface PromptMessage {
  role: Role;
  content: Part[];
}

const ROLES = new Map<string, Role>([
  ["system", "system"],
  ["developer", "system"],
  ["user", "user"],
  ["human", "user"],
  ["assistant", "assistant"],
  ["ai", "assistant"],
  ["model", "assistant"],
  ["tool", "tool"],
  ["function", "tool"],
  ["ipython", "tool"],
]);

const roleOf = (value: unknown, fallback: Role): Role =>
  (typeof value === "string" && ROLES.get(value.toLowerCase())) || fallback;

const textPart = (value: string): Part => ({ modality: "text", value });

/** JSON text → its value; anything else → undefined. */
function parseJson(text: unknown): unknown {
  if (typeof text !== "string") return text === undefined ? undefined : text;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A value as text: text as it is, anything else as JSON. */
const asText = (value: unknown): string => (typeof value === "string" ? value : (JSON.stringify(value) ?? ""));

/** One part of a message in any of the conventions' shapes, as PromptMessage content. */
function partOf(part: unknown, index: number): Part {
  if (typeof part === "string") return textPart(part);
  if (part === null || typeof part !== "object") return textPart(asText(part));
  const record = part as Record<string, unknown>;
  const type = typeof record.type === "string" ? record.type : "text";
  if (type === "text" || type === "input_text" || type === "output_text") {
    return textPart(asText(record.content ?? record.text ?? record.value ?? ""));
  }
  if (type === "tool_call" || type === "tool-call" || type === "function") {
    // OpenAI's shape nests the call: {id, type: "function", function: {name, arguments}}.
    const call =
      record.function !== null && typeof record.function === "object"
        ? { ...record, ...(record.function as Record<string, unknown>) }
        : record;
    return {
      modality: "tool-call",
      index,
      id: asText(call.id ?? call.toolCallId ?? `call_${index}`) || `call_${index}`,
      name: asText(call.name ?? call.toolName ?? "tool") || "tool",
      arguments: asText(call.arguments ?? call.input ?? call.args ?? {}),
    };
  }
  if (type === "tool_call_response" || type === "tool-result") {
    return {
      modality: "tool-response",
      index,
      id: asText(record.id ?? record.toolCallId ?? `call_${index}`) || `call_${index}`,
      name: asText(record.name ?? record.toolName ?? "tool") || "tool",
      data: asText(record.response ?? record.output ?? record.result ?? ""),
    };
  }
  return textPart(JSON.stringify(part));
}

/** A message's content in any of the shapes: text, a list of parts, or anything else as JSON text. */
function contentOf(content: unknown): Part[] {
  if (content === undefined || content === null) return [];
  if (Array.isArray(content)) return content.map(partOf);
  return [partOf(content, 0)];
}

/** A list of messages `[{role, parts | content}]` (GenAI's current form, the AI SDK's, OpenAI's). */
function messagesOf(value: unknown, fallback: Role): PromptMessage[] | undefined {
  const list = typeof value === "string" ? parseJson(value) : value;
  if (!Array.isArray(list)) return undefined;
  return list.map((item) => {
    const record: Record<string, unknown> =
      item !== null && typeof item === "object" ? (item as Record<string, unknown>) : { content: item };
    return { role: roleOf(record.role, fallback), content: contentOf(record.parts ?? record.content) };
  });
}

/** Flattened messages (`gen_ai.prompt.N.role`/`.content`, `llm.input_messages.N.message.*`). */
function flattenedMessages(entries: Map<string, OtlpValue>[], fallback: Role, inner = ""): PromptMessage[] {
  return entries.map((entry) => {
    const get = (key: string) => entry.get(`${inner}${key}`);
    const content: Part[] = [];
    const text = get("content");
    if (text !== undefined && text !== null) {
      const parsed = typeof text === "string" && /^\s*\[/.test(text) ? parseJson(text) : undefined;
      content.push(...(Array.isArray(parsed) ? contentOf(parsed) : [textPart(asText(text))]));
    }
    // OpenInference: .contents.M.message_content.text; tool calls: .tool_calls.K.tool_call.function.name/arguments
    const parts = new Map<number, Map<string, OtlpValue>>();
    const calls = new Map<number, Map<string, OtlpValue>>();
    for (const [key, value] of entry) {
      const part = new RegExp(`^${inner.replace(/\./g, "\\.")}contents\\.(\\d+)\\.(.+)$`).exec(key);
      if (part) parts.set(Number(part[1]), (parts.get(Number(part[1])) ?? new Map()).set(part[2] as string, value));
      const call = new RegExp(`^${inner.replace(/\./g, "\\.")}tool_calls\\.(\\d+)\\.(.+)$`).exec(key);
      if (call) calls.set(Number(call[1]), (calls.get(Number(call[1])) ?? new Map()).set(call[2] as string, value));
    }
    for (const [, part] of [...parts].sort(([a], [b]) => a - b)) {
      const partText = part.get("message_content.text") ?? part.get("text");
      if (partText !== undefined) content.push(textPart(asText(partText)));
      else content.push(textPart(JSON.stringify(Object.fromEntries(part))));
    }
    for (const [index, call] of [...calls].sort(([a], [b]) => a - b)) {
      content.push(
        partOf(
          {
            type: "tool_call",
            id: call.get("tool_call.id") ?? call.get("id"),
            name: call.get("tool_call.function.name") ?? call.get("name"),
            arguments: call.get("tool_call.function.arguments") ?? call.get("arguments"),
          },
          index,
        ),
      );
    }
    return { role: roleOf(get("role"), fallback), content };
  });
}

// Messages as span events: GenAI conventions before gen_ai.input.messages (`gen_ai.user.message`, `gen_ai.choice`,
// …) and OpenLLMetry's `gen_ai.content.prompt` / `gen_ai.content.completion`. The events themselves stay events.

const MESSAGE_EVENT_ROLES = new Map<string, Role>([
  ["gen_ai.system.message", "system"],
  ["gen_ai.user.message", "user"],
  ["gen_ai.assistant.message", "assistant"],
  ["gen_ai.tool.message", "tool"],
]);

/** An event attribute's value as plain JSON, JSON text parsed. */
function eventValue(value: OtlpValue | undefined): unknown {
  if (value === undefined) return undefined;
  if (typeof value === "string") return /^\s*[[{]/.test(value) ? (parseJson(value) ?? value) : value;
  return plain(value);
}

/** One message event's message: `content` (text, parts or JSON) and `tool_calls`, or a `message` map of both. */
function eventMessage(attributes: OtlpMap, role: Role): PromptMessage {
  const message = eventValue(attributes.get("message"));
  const record =
    message !== null && typeof message === "object" && !Array.isArray(message)
      ? (message as Record<string, unknown>)
      : {
          content: message ?? eventValue(attributes.get("content")),
          tool_calls: eventValue(attributes.get("tool_calls")),
        };
  const content = contentOf(record.content);
  const calls = Array.isArray(record.tool_calls) ? record.tool_calls : [];
  content.push(...calls.map((call, index) => partOf({ type: "function", ...(call as object) }, index)));
  if (role === "tool") {
    const id = eventValue(attributes.get("id")) ?? record.id;
    if (id !== undefined)
      return {
        role,
        content: [
          {
            modality: "tool-response",
            index: 0,
            id: asText(id),
            name: "tool",
            data: content.map((part) => asText(part.value ?? part)).join(""),
          },
        ],
      };
  }
  return { role: roleOf(record.role, role), content };
}

/** The request and response messages a span's events carry (empty lists when they carry none). */
export function eventMessages(events: readonly OtlpEvent[]): { input: PromptMessage[]; output: PromptMessage[] } {
  const input: PromptMessage[] = [];
  const output: PromptMessage[] = [];
  for (const event of events) {
    const role = MESSAGE_EVENT_ROLES.get(event.name);
    if (role) input.push(eventMessage(event.attributes, role));
    else if (event.name === "gen_ai.choice") output.push(eventMessage(event.attributes, "assistant"));
    else if (event.name === "gen_ai.content.prompt") {
      input.push(...(messagesOf(event.attributes.get("gen_ai.prompt"), "user") ?? []));
    } else if (event.name === "gen_ai.content.completion") {
      output.push(...(messagesOf(event.attributes.get("gen_ai.completion"), "assistant") ?? []));
    }
  }
  return { input, output };
}

/** The request messages of a Model span, by the first convention that has them. */
function inputMessages(reader: AttributeReader): PromptMessage[] {
  const system = messagesOf(reader.take("gen_ai.system_instructions"), "system");
  const current = messagesOf(reader.take("gen_ai.input.messages"), "user");
  if (current) {
    const instructions: PromptMessage[] = system?.length
      ? [{ role: "system", content: system.flatMap((message) => message.content) }]
      : [];
    return [...instructions, ...current];
  }
  const older = reader.indexed("gen_ai.prompt.");
  if (older.length > 0) return flattenedMessages(older, "user");
  const openInference = reader.indexed("llm.input_messages.");
  if (openInference.length > 0) return flattenedMessages(openInference, "user", "message.");
  const aiSdk = messagesOf(reader.take("ai.prompt.messages"), "user");
  if (aiSdk) return aiSdk;
  const prompt = reader.take("ai.prompt", "input.value", "gen_ai.prompt");
  if (prompt === undefined) return [];
  const promptObject = parseJson(prompt) as { system?: unknown; prompt?: unknown; messages?: unknown } | undefined;
  if (promptObject && typeof promptObject === "object" && !Array.isArray(promptObject)) {
    const messages = messagesOf(promptObject.messages, "user");
    if (messages) return messages;
    if (promptObject.prompt !== undefined) {
      const systemMessage: PromptMessage[] =
        typeof promptObject.system === "string" ? [{ role: "system", content: [textPart(promptObject.system)] }] : [];
      return [...systemMessage, { role: "user", content: contentOf(promptObject.prompt) }];
    }
  }
  return [{ role: "user", content: [textPart(asText(prompt))] }];
}

/** The response messages of a Model span. */
function outputMessages(reader: AttributeReader): PromptMessage[] {
  const current = messagesOf(reader.take("gen_ai.output.messages"), "assistant");
  if (current) return current;
  const older = reader.indexed("gen_ai.completion.");
  if (older.length > 0) return flattenedMessages(older, "assistant");
  const openInference = reader.indexed("llm.output_messages.");
  if (openInference.length > 0) return flattenedMessages(openInference, "assistant", "message.");
  const text = reader.take("ai.response.text");
  const toolCalls = parseJson(reader.take("ai.response.toolCalls"));
  if (text !== undefined || Array.isArray(toolCalls)) {
    const content: Part[] = text !== undefined ? [textPart(asText(text))] : [];
    if (Array.isArray(toolCalls))
      content.push(...toolCalls.map((call, index) => partOf({ type: "tool-call", ...call }, index)));
    return [{ role: "assistant", content }];
  }
  const output = reader.take("output.value", "gen_ai.completion");
  return output === undefined ? [] : [{ role: "assistant", content: [textPart(asText(output))] }];
}

export interface ModelFields {
  provider: string;
  model: string;
  input: { messages: PromptMessage[] };
  output: {
    messages: PromptMessage[];
    tokenUsage?: { promptTokens: number; completionTokens: number; totalTokens: number };
  };
  /** The cost the span carries, if any (the caller prices the rest). */
  cost: number | undefined;
}

/** Text PostgreSQL can store (it holds no U+0000 in text), on both databases alike. */
export const withoutNul = (text: string) => (text.includes("\0") ? text.replaceAll("\0", "\uFFFD") : text);

/** The fields of a Model span, from whichever convention's attributes it carries, else from its message events. */
export function modelFields(reader: AttributeReader, events: readonly OtlpEvent[]): ModelFields {
  const providerText = reader.text(...PROVIDER_KEYS);
  // The AI SDK names providers `openai.chat`, `anthropic.messages`: the provider is the part before the dot.
  // Columns of their own: no U+0000, which PostgreSQL cannot store in text.
  const provider = withoutNul((providerText?.split(".")[0] ?? "").toLowerCase().slice(0, 200)) || "unknown";
  const model = withoutNul((reader.text(...MODEL_KEYS) ?? "").slice(0, 200)) || "unknown";
  const promptTokens = reader.count(...INPUT_TOKEN_KEYS);
  const completionTokens = reader.count(...OUTPUT_TOKEN_KEYS);
  const totalTokens = reader.count(...TOTAL_TOKEN_KEYS);
  const costValue = reader.take(...COST_KEYS);
  const cost = typeof costValue === "number" && Number.isFinite(costValue) && costValue >= 0 ? costValue : undefined;
  const fromEvents = events.length > 0 ? eventMessages(events) : { input: [], output: [] };
  const outputList = outputMessages(reader);
  const output: ModelFields["output"] = { messages: outputList.length > 0 ? outputList : fromEvents.output };
  if (promptTokens !== undefined || completionTokens !== undefined || totalTokens !== undefined) {
    const input = promptTokens ?? 0;
    const completion = completionTokens ?? 0;
    output.tokenUsage = {
      promptTokens: input,
      completionTokens: completion,
      totalTokens: totalTokens ?? input + completion,
    };
  }
  const inputList = inputMessages(reader);
  return { provider, model, input: { messages: inputList.length > 0 ? inputList : fromEvents.input }, output, cost };
}

// ---------------------------------------------------------------------------------------------------------------
// Other content types

const INPUT_KEYS = [
  "gen_ai.tool.call.arguments",
  "ai.toolCall.args",
  "ai.toolCall.input",
  "traceloop.entity.input",
  "input.value",
  "ai.prompt",
  "ai.values",
  "ai.value",
];
const OUTPUT_KEYS = [
  "gen_ai.tool.call.result",
  "ai.toolCall.result",
  "ai.toolCall.output",
  "traceloop.entity.output",
  "output.value",
  "ai.response.text",
  "ai.response.object",
  "ai.embeddings",
  "ai.embedding",
];

/** JSON text of a value: JSON text as it is, other text as a JSON string, other values as JSON. */
export function jsonTextOf(value: OtlpValue | undefined): string {
  if (value === undefined || value === null) return "{}";
  if (typeof value === "string") return parseJson(value) === undefined ? JSON.stringify(value) : value;
  return JSON.stringify(plain(value));
}

/**
 * A retriever's documents (OpenInference's `retrieval.documents.N.document.id`/`.content`/`.score`/`.metadata`),
 * metadata given as JSON text parsed; undefined when the span lists none.
 */
function retrievalDocuments(reader: AttributeReader): Record<string, unknown>[] | undefined {
  const entries = reader.indexed("retrieval.documents.");
  if (entries.length === 0) return undefined;
  return entries.map((entry) => {
    const document: Record<string, unknown> = {};
    for (const [key, value] of entry) {
      const field = key.startsWith("document.") ? key.slice("document.".length) : key;
      Object.defineProperty(document, field, {
        value: field === "metadata" ? eventValue(value) : plain(value),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return document;
  });
}

/** Input and output of a non-Model span; a Retrieval span's output is its documents when it lists them. */
export function stepFields(reader: AttributeReader, type: ContentType): { input: string; output: string } {
  const input = jsonTextOf(reader.take(...INPUT_KEYS));
  const documents = type === "Retrieval" ? retrievalDocuments(reader) : undefined;
  if (documents) return { input, output: JSON.stringify({ documents }) };
  return { input, output: jsonTextOf(reader.take(...OUTPUT_KEYS)) };
}

/** A decoded value as plain JSON: maps as objects, NaN and the infinities as text. */
export function plain(value: OtlpValue): unknown {
  if (value instanceof Map) {
    const object: Record<string, unknown> = {};
    for (const [key, item] of value) {
      // defineProperty, so that a key named __proto__ is a key like any other.
      Object.defineProperty(object, key, { value: plain(item), enumerable: true, writable: true, configurable: true });
    }
    return object;
  }
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  return value;
}
