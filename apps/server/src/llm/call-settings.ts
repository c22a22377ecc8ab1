import type { schemas } from "@pharos/contract";

export interface SdkCallSettings {
  temperature?: number;
  maxOutputTokens?: number;
  topP?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
}

/**
 * The prompt settings every vendor understands, in the SDK's names. Other keys (a provider-specific
 * `responseFormat`, `reasoningEffort`, …) are stored with the prompt but not applied here: each would need its
 * own per-vendor translation, and passing them through blindly could change what the model is asked.
 */
export function toCallSettings(settings: schemas.PromptSettings): SdkCallSettings {
  const mapped: SdkCallSettings = {};
  if (typeof settings.temperature === "number") mapped.temperature = settings.temperature;
  if (typeof settings.maxTokens === "number") mapped.maxOutputTokens = settings.maxTokens;
  if (typeof settings.topP === "number") mapped.topP = settings.topP;
  if (typeof settings.presencePenalty === "number") mapped.presencePenalty = settings.presencePenalty;
  if (typeof settings.frequencyPenalty === "number") mapped.frequencyPenalty = settings.frequencyPenalty;
  return mapped;
}
