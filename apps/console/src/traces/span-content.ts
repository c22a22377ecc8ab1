/**
 * What a span's content means to a reader: a Model span's messages (platform form or OpenAI's native form) as
 * chat turns with roles, tool calls and results; any other span's input and output as parsed JSON. Content
 * that is neither is shown raw. Pure, so it is tested without a browser.
 */
export type Part =
  | { kind: "text"; text: string }
  | { kind: "tool-call"; name: string; arguments: string }
  | { kind: "tool-response"; name: string; data: string }
  | { kind: "image"; url: string }
  | { kind: "other"; value: unknown };

export interface ChatMessage {
  role: string;
  parts: Part[];
}

export type ReadableContent =
  | { kind: "chat"; input: ChatMessage[]; output: ChatMessage[] }
  | { kind: "io"; input: unknown; output: unknown }
  | { kind: "raw" };

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** JSON text parsed, or the text itself when it is not JSON. */
export function parseJsonText(text: unknown): unknown {
  if (typeof text !== "string") return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Pretty JSON of a string that holds JSON (tool arguments), else the string. */
const pretty = (text: unknown) => {
  const parsed = parseJsonText(text);
  return typeof parsed === "string" ? parsed : JSON.stringify(parsed, null, 2);
};

function partOf(item: unknown): Part {
  if (typeof item === "string") return { kind: "text", text: item };
  if (!isObject(item)) return { kind: "other", value: item };
  // The platform form (MessageContent): `modality`.
  if (item.modality === "text" && typeof item.value === "string") return { kind: "text", text: item.value };
  if (item.modality === "tool-call") {
    return { kind: "tool-call", name: String(item.name ?? ""), arguments: pretty(item.arguments) };
  }
  if (item.modality === "tool-response") {
    return { kind: "tool-response", name: String(item.name ?? ""), data: pretty(item.data) };
  }
  if (item.modality === "image" && isObject(item.value) && typeof item.value.url === "string") {
    return { kind: "image", url: item.value.url };
  }
  // OpenAI's native parts: `type`.
  if (item.type === "text" && typeof item.text === "string") return { kind: "text", text: item.text };
  if (item.type === "image_url" && isObject(item.image_url) && typeof item.image_url.url === "string") {
    return { kind: "image", url: item.image_url.url };
  }
  return { kind: "other", value: item };
}

function messageOf(raw: unknown): ChatMessage | undefined {
  if (!isObject(raw) || typeof raw.role !== "string") return undefined;
  const content = raw.content;
  const parts: Part[] = Array.isArray(content)
    ? content.map(partOf)
    : content === null || content === undefined
      ? []
      : [partOf(content)];
  if (Array.isArray(raw.tool_calls)) {
    for (const call of raw.tool_calls) {
      const fn = isObject(call) && isObject(call.function) ? call.function : {};
      parts.push({ kind: "tool-call", name: String(fn.name ?? ""), arguments: pretty(fn.arguments) });
    }
  }
  if (raw.role === "tool" && typeof raw.tool_call_id === "string" && parts.length === 1 && parts[0]?.kind === "text") {
    return { role: raw.role, parts: [{ kind: "tool-response", name: raw.tool_call_id, data: pretty(parts[0].text) }] };
  }
  return { role: raw.role, parts };
}

/** The messages of a request or response: `{messages}` (platform, OpenAI request) or `{choices}` (OpenAI response). */
export function messagesOf(payload: unknown): ChatMessage[] | undefined {
  if (!isObject(payload)) return undefined;
  let raw: unknown[] | undefined;
  if (Array.isArray(payload.messages)) raw = payload.messages;
  else if (Array.isArray(payload.choices))
    raw = payload.choices.map((choice) => (isObject(choice) ? choice.message : undefined));
  if (!raw) return undefined;
  const messages = raw.map(messageOf);
  return messages.every((message) => message !== undefined) ? (messages as ChatMessage[]) : undefined;
}

/** The readable form of a span's parsed content. */
export function readableContent(content: unknown): ReadableContent {
  if (!isObject(content)) return { kind: "raw" };
  const input = parseJsonText(content.input);
  const output = parseJsonText(content.output);
  if (content.type === "Model" || content.type === "ModelStream") {
    const inputMessages = messagesOf(input);
    const outputMessages = messagesOf(output);
    if (inputMessages && outputMessages) return { kind: "chat", input: inputMessages, output: outputMessages };
  }
  if ("input" in content || "output" in content) return { kind: "io", input, output };
  return { kind: "raw" };
}
