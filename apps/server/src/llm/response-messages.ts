import type { schemas } from "@pharos/contract";
import type { GenerateTextResult, ToolSet } from "ai";

type ResponsePart = GenerateTextResult<ToolSet, never>["content"][number];
type Content = schemas.MessageContent;

/** By the media type a provider names: a Map, where a plain object would answer `constructor` with a function. */
const IMAGE_FORMATS = new Map<string, "png" | "jpeg" | "webp" | "gif">([
  ["image/png", "png"],
  ["image/jpeg", "jpeg"],
  ["image/webp", "webp"],
  ["image/gif", "gif"],
]);

/**
 * The model's answer as one assistant PromptMessage: text, reasoning (with the signature Anthropic needs back),
 * tool calls and generated images. Sources and the SDK's own tool bookkeeping have no PromptMessage form.
 */
export function toResponseMessages(content: ResponsePart[]): schemas.PromptMessage[] {
  const parts: Content[] = [];
  let toolCallIndex = 0;
  for (const part of content) {
    switch (part.type) {
      case "text":
        parts.push({ modality: "text", value: part.text });
        break;
      case "reasoning":
        parts.push(reasoningContent(part.text, part.providerMetadata?.anthropic));
        break;
      case "tool-call":
        parts.push({
          modality: "tool-call",
          index: toolCallIndex++,
          id: part.toolCallId,
          name: part.toolName,
          // A call whose arguments did not parse keeps the model's raw text.
          arguments: typeof part.input === "string" ? part.input : JSON.stringify(part.input ?? {}),
        });
        break;
      case "file": {
        const format = IMAGE_FORMATS.get(part.file.mediaType);
        if (format) {
          parts.push({
            modality: "image",
            detail: "auto",
            value: { type: "base64", base64: part.file.base64, mediaType: format },
          });
        }
        break;
      }
    }
  }
  return [{ role: "assistant", content: parts }];
}

function reasoningContent(text: string, anthropic: Record<string, unknown> | undefined): Content {
  const redactedData = anthropic?.redactedData;
  if (typeof redactedData === "string")
    return { modality: "reasoning", value: { type: "redacted", data: redactedData } };
  const signature = anthropic?.signature;
  return {
    modality: "reasoning",
    value: { type: "thinking", thinking: text, ...(typeof signature === "string" && { signature }) },
  };
}
