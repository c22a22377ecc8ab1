/**
 * Template variables of a prompt, derived from `{{name}}` placeholders in its messages (PromptVariableMap):
 * a placeholder in a text value makes a `text` variable, in an image URL an `image` one, in a PDF URL a `pdf`
 * one; a name used in several kinds of slot takes `image`, else `pdf`, else `text`. Tools, tool calls and
 * tool responses, reasoning, errors and search results hold no variables. Drafts expose the variables as a
 * map, deployment snapshots as a list in order of first appearance.
 */
import type { schemas } from "@pharos/contract";

type Message = schemas.PromptMessage;
type DerivedModality = "text" | "image" | "pdf";

export type VariableMap = schemas.PromptVariableMap;
export type VariableList = schemas.PromptVariable[];

/** The most variables a prompt may have (PromptVariableMap `maxProperties`, PromptSnapshot `maxItems`). */
export const MAX_VARIABLES = 100;

/** `{{name}}` with a name of 1 to 64 letters, digits, `_` or `-`; anything else (spaces included) is literal. */
const PLACEHOLDER = /\{\{([A-Za-z0-9_-]{1,64})\}\}/g;

const RANK: Record<DerivedModality, number> = { text: 0, pdf: 1, image: 2 };

/** Placeholder names in `text`, in order, repeats included. */
export function placeholders(text: string): string[] {
  return Array.from(text.matchAll(PLACEHOLDER), (match) => match[1] as string);
}

/** The variables of `messages` in order of first appearance, each with the modality its slots give it. */
export function variableList(messages: readonly Message[]): VariableList {
  const found = new Map<string, DerivedModality>();
  const see = (text: string, modality: DerivedModality) => {
    for (const name of placeholders(text)) {
      const seen = found.get(name);
      if (seen === undefined || RANK[modality] > RANK[seen]) found.set(name, modality);
    }
  };
  for (const message of messages) {
    for (const part of message.content) {
      if (part.modality === "text") see(part.value, "text");
      else if ((part.modality === "image" || part.modality === "pdf") && part.value.type === "url") {
        see(part.value.url, part.modality);
      }
    }
  }
  return Array.from(found, ([name, modality]) => ({ name, modality }));
}

/**
 * The variables of `messages` keyed by name. Object.fromEntries defines own properties, so a variable named
 * `__proto__` is an ordinary key rather than a prototype change.
 */
export function variableMap(messages: readonly Message[]): VariableMap {
  return Object.fromEntries(variableList(messages).map(({ name, modality }) => [name, { modality }]));
}
