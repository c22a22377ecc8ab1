import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModel } from "ai";
import { ModelCallError } from "./model-call-error.ts";
import type { ModelTarget } from "./model-target.ts";

// Defaults are spelled out so the SDK never falls back to OPENAI_BASE_URL / ANTHROPIC_BASE_URL from the environment.
const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";
const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com/v1";

/** Chat Completions accepts image URLs, so an OpenAI-compatible server is sent them rather than the bytes. */
const IMAGE_URLS = { "image/*": [/^https?:\/\/.*$/] };

/**
 * The AI SDK model for a target. The API key is always passed explicitly: the SDK would otherwise read
 * OPENAI_API_KEY / ANTHROPIC_API_KEY from the server's environment and bill the wrong account.
 */
export function languageModelFor(target: ModelTarget): LanguageModel {
  switch (target.provider) {
    case "openai": {
      const openai = createOpenAI({
        apiKey: requireApiKey(target),
        baseURL: target.baseUrl ?? OPENAI_DEFAULT_BASE_URL,
        headers: target.headers,
      });
      // Chat Completions, not the Responses API: it is what OpenAI-style proxies and gateways implement too.
      return openai.chat(target.model);
    }
    case "anthropic": {
      const anthropic = createAnthropic({
        apiKey: requireApiKey(target),
        baseURL: target.baseUrl ?? ANTHROPIC_DEFAULT_BASE_URL,
        headers: target.headers,
      });
      return anthropic.messages(target.model);
    }
    case "openai-compatible": {
      if (target.baseUrl === null) throw new ModelCallError("no base URL: an openai-compatible provider needs one");
      const compatible = createOpenAICompatible({
        name: "openai-compatible",
        baseURL: target.baseUrl,
        // No key means no Authorization header at all (local servers such as Ollama need none).
        ...(target.apiKey !== null && { apiKey: target.apiKey }),
        headers: target.headers,
        // Ask for `response_format: json_schema` (what current compatible servers implement) for structured output.
        supportsStructuredOutputs: true,
        supportedUrls: () => IMAGE_URLS,
      });
      return compatible.chatModel(target.model);
    }
  }
}

function requireApiKey(target: ModelTarget): string {
  if (target.apiKey === null)
    throw new ModelCallError(`no credentials: the ${target.provider} provider has no API key`);
  return target.apiKey;
}
