import type { schemas } from "@pharos/contract";
import type {
  AssistantContent,
  FilePart,
  ImagePart,
  ModelMessage,
  TextPart,
  ToolCallPart,
  ToolResultPart,
  UserContent,
} from "ai";
import { ModelCallError } from "./model-call-error.ts";

type Content = schemas.MessageContent;
type AssistantPart = Exclude<AssistantContent, string>[number];
type UserPart = Exclude<UserContent, string>[number];

/**
 * Prompt messages in the AI SDK's form. Each role carries the parts its vendor APIs accept; any other part
 * (an image from the assistant, an `error` or `search-result` part anywhere, …) is refused with a
 * ModelCallError that names the message and the part, rather than being dropped silently.
 */
export function toModelMessages(messages: schemas.PromptMessage[]): ModelMessage[] {
  return messages.map(toModelMessage);
}

function toModelMessage(message: schemas.PromptMessage, index: number): ModelMessage {
  const where = `message ${index + 1} (${message.role})`;
  switch (message.role) {
    case "system":
      // The SDK takes system content as one string; separate parts stay on separate lines.
      return { role: "system", content: message.content.map((part) => systemText(part, where)).join("\n") };
    case "user":
      return { role: "user", content: message.content.map((part) => userPart(part, where)) };
    case "assistant":
      return { role: "assistant", content: message.content.map((part) => assistantPart(part, where)) };
    case "tool":
      return { role: "tool", content: message.content.map((part) => toolPart(part, where)) };
  }
}

function systemText(part: Content, where: string): string {
  if (part.modality !== "text") throw refused(part, where);
  return part.value;
}

function userPart(part: Content, where: string): UserPart {
  switch (part.modality) {
    case "text":
      return textPart(part);
    case "image":
      return imagePart(part, where);
    case "pdf":
      return pdfPart(part, where);
    default:
      throw refused(part, where);
  }
}

function assistantPart(part: Content, where: string): AssistantPart {
  switch (part.modality) {
    case "text":
      return textPart(part);
    case "tool-call":
      return toolCallPart(part, where);
    case "reasoning":
      return reasoningPart(part);
    default:
      throw refused(part, where);
  }
}

function toolPart(part: Content, where: string): ToolResultPart {
  if (part.modality !== "tool-response") throw refused(part, where);
  return { type: "tool-result", toolCallId: part.id, toolName: part.name, output: { type: "text", value: part.data } };
}

function textPart(part: schemas.TextContent): TextPart {
  return { type: "text", text: part.value };
}

const IMAGE_MEDIA_TYPES = { png: "image/png", jpeg: "image/jpeg", webp: "image/webp", gif: "image/gif" } as const;

function imagePart(part: schemas.ImageContent, where: string): ImagePart {
  // Chat Completions knows low/high/auto only; "medium" is left to the model, like "auto". Other vendors ignore it.
  const providerOptions = part.detail === "medium" ? undefined : { openai: { imageDetail: part.detail } };
  const image =
    part.value.type === "url"
      ? { image: parseUrl(part.value.url, `${where}: image URL`) }
      : { image: part.value.base64, mediaType: IMAGE_MEDIA_TYPES[part.value.mediaType] };
  return { type: "image", ...image, ...(providerOptions && { providerOptions }) };
}

function pdfPart(part: schemas.PdfContent, where: string): FilePart {
  // A PDF URL reaches the vendor as a URL where its API takes one (Anthropic); elsewhere the SDK fetches it.
  const data = part.value.type === "url" ? parseUrl(part.value.url, `${where}: PDF URL`) : part.value.base64;
  return { type: "file", data, mediaType: "application/pdf", filename: part.file.name };
}

function toolCallPart(part: schemas.ToolCallContent, where: string): ToolCallPart {
  return {
    type: "tool-call",
    toolCallId: part.id,
    toolName: part.name,
    input: toolCallInput(part, where),
    // Gemini (behind an OpenAI-compatible endpoint) wants its signature back with the call.
    ...(part.thoughtSignature != null && { providerOptions: { google: { thoughtSignature: part.thoughtSignature } } }),
  };
}

function toolCallInput(part: schemas.ToolCallContent, where: string): Record<string, unknown> {
  if (part.arguments.trim() === "") return {};
  let input: unknown;
  try {
    input = JSON.parse(part.arguments);
  } catch {
    throw new ModelCallError(`${where}: the arguments of tool call ${part.id} are not JSON`);
  }
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new ModelCallError(`${where}: the arguments of tool call ${part.id} are not a JSON object`);
  }
  return input as Record<string, unknown>;
}

function reasoningPart(part: schemas.ReasoningContent): AssistantPart {
  // Anthropic needs the signature (or the redacted data) back to accept earlier thinking; others ignore it.
  if (part.value.type === "redacted") {
    return { type: "reasoning", text: "", providerOptions: { anthropic: { redactedData: part.value.data } } };
  }
  const { thinking, signature } = part.value;
  return {
    type: "reasoning",
    text: thinking ?? "",
    ...(signature !== undefined && { providerOptions: { anthropic: { signature } } }),
  };
}

function parseUrl(url: string, what: string): URL {
  try {
    return new URL(url);
  } catch {
    throw new ModelCallError(`${what} is not a valid URL: ${url.slice(0, 200)}`);
  }
}

function refused(part: Content, where: string): ModelCallError {
  return new ModelCallError(`${where}: ${part.modality} content cannot be sent to a model in this role`);
}
