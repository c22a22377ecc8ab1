/**
 * `injectVariables`: a deployed prompt's messages with its `{{name}}` placeholders filled, where the spec says
 * placeholders make variables: text values, and image and PDF URLs. One pass, so a value that itself contains
 * `{{…}}` is not expanded again. A placeholder without a value is left as it is and reported missing; anything
 * that is not a placeholder by the spec's rule (`{{ name }}`, `{{a.b}}`) is left alone.
 */
import type { Deployment, PromptMessage, PromptSnapshot, SpanVariable } from "./types.ts";

/** The spec's placeholder: 1 to 64 letters, digits, `_` or `-` (PromptVariableMap). */
const PLACEHOLDER = /\{\{([A-Za-z0-9_-]{1,64})\}\}/g;

export interface InjectedPrompt {
  /** The messages with placeholders filled (new objects; the deployment is not changed). */
  messages: PromptMessage[];
  /** Variables used by the prompt (declared, or found in a slot) that got no value, in order of first use. */
  missing: string[];
  /**
   * The values the prompt used, as a Model span's `content.variables` takes them (modality from the prompt's
   * declaration), so continuous evaluation and datasets from logs see what the call was made with.
   */
  variables: Record<string, SpanVariable>;
}

export function injectVariables(
  deployment: Deployment | PromptSnapshot,
  values: Readonly<Record<string, string>>,
): InjectedPrompt {
  const prompt = "prompt" in deployment ? deployment.prompt : deployment;
  const missing = new Set<string>();
  const used = new Set<string>();
  const fill = (text: string) =>
    text.replace(PLACEHOLDER, (placeholder, name: string) => {
      if (!Object.hasOwn(values, name)) {
        missing.add(name);
        return placeholder;
      }
      used.add(name);
      return values[name] as string;
    });

  const messages = prompt.messages.map((message) => ({
    ...message,
    content: message.content.map((part) => {
      if (part.modality === "text") return { ...part, value: fill(part.value) };
      if ((part.modality === "image" || part.modality === "pdf") && part.value.type === "url") {
        return { ...part, value: { ...part.value, url: fill(part.value.url) } };
      }
      return part;
    }),
  })) as PromptMessage[];

  const variables: Record<string, SpanVariable> = {};
  for (const variable of prompt.variables) {
    if (Object.hasOwn(values, variable.name)) {
      variables[variable.name] = { modality: variable.modality, value: values[variable.name] as string };
    } else missing.add(variable.name);
  }
  for (const name of used) variables[name] ??= { modality: "text", value: values[name] as string };
  return { messages, missing: [...missing], variables };
}
