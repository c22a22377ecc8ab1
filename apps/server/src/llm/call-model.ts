import type { schemas } from "@pharos/contract";
import { generateText } from "ai";
import { withinCallLimits } from "./call-limits.ts";
import { toCallSettings } from "./call-settings.ts";
import { languageModelFor } from "./language-model.ts";
import { toModelMessages } from "./messages.ts";
import type { CallOptions, ModelTarget } from "./model-target.ts";
import { toResponseMessages } from "./response-messages.ts";
import { toToolSet } from "./tools.ts";

export { ModelCallError } from "./model-call-error.ts";

export interface ModelCallResult {
  /** The assistant's text output. */
  text: string;
  /** The response as PromptMessages (one assistant message: text, reasoning, tool calls). */
  responseMessages: schemas.PromptMessage[];
  /** As reported by the provider; null when it reports none. */
  inputTokens: number | null;
  outputTokens: number | null;
  /** Wall time of the whole call, retries included. */
  latencyMs: number;
}

export interface ModelRequest {
  messages: schemas.PromptMessage[];
  tools: schemas.PromptTool[];
  settings: schemas.PromptSettings;
}

/** One model call (one step: tool calls are returned, not run). Throws ModelCallError on any failure. */
export async function callModel(
  target: ModelTarget,
  request: ModelRequest,
  options: CallOptions,
): Promise<ModelCallResult> {
  const model = languageModelFor(target);
  const messages = toModelMessages(request.messages);
  const tools = toToolSet(request.tools);
  const started = performance.now();
  const result = await withinCallLimits(target, options, (abortSignal) =>
    generateText({
      model,
      messages,
      ...(tools && { tools }),
      ...toCallSettings(request.settings),
      // System messages come from the prompt's author, not from end users.
      allowSystemInMessages: true,
      maxRetries: options.maxRetries,
      abortSignal,
    }),
  );
  return {
    text: result.text,
    responseMessages: toResponseMessages(result.content),
    inputTokens: result.totalUsage.inputTokens ?? null,
    outputTokens: result.totalUsage.outputTokens ?? null,
    latencyMs: Math.round(performance.now() - started),
  };
}
