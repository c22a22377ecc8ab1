/**
 * A prompt version filled with one dataset row: every `{{name}}` in text values and in image/PDF URLs replaced by
 * the row's value of the column `name`. Other parts (tool calls, reasoning, …) are sent as written.
 */
import type { schemas } from "@pharos/contract";
import { variableList } from "../services/prompts/template-variables.ts";

type Message = schemas.PromptMessage;

const PLACEHOLDER = /\{\{([A-Za-z0-9_-]{1,64})\}\}/g;

export type RenderResult = { messages: Message[] } | { missing: string[] };

/** The prompt's variables for which the dataset has no column (a run-level failure, before any model call). */
export function variablesWithoutColumn(messages: readonly Message[], columnNames: readonly string[]): string[] {
  const names = new Set(columnNames);
  return variableList(messages)
    .map((variable) => variable.name)
    .filter((name) => !names.has(name));
}

/** The messages with the row's values in place, or the variables whose cell is empty (null) in this row. */
export function renderPrompt(
  messages: readonly Message[],
  values: Readonly<Record<string, string | null>>,
): RenderResult {
  const missing = variableList(messages)
    .map((variable) => variable.name)
    .filter((name) => !Object.hasOwn(values, name) || values[name] === null);
  if (missing.length > 0) return { missing };
  // Values are looked up as own properties only: a variable named `constructor` is a column like any other.
  const fill = (text: string) => text.replace(PLACEHOLDER, (whole, name: string) => values[name] ?? whole);
  return {
    messages: messages.map((message) => ({
      ...message,
      content: message.content.map((part) => {
        if (part.modality === "text") return { ...part, value: fill(part.value) };
        if ((part.modality === "image" || part.modality === "pdf") && part.value.type === "url") {
          return { ...part, value: { ...part.value, url: fill(part.value.url) } } as typeof part;
        }
        return part;
      }),
    })),
  };
}

/** A row's cells (keyed by column id) as text keyed by column name; an empty cell is null. */
export function valuesByColumnName(
  cells: Readonly<Record<string, unknown>>,
  columns: readonly { id: string; name: string }[],
): Record<string, string | null> {
  return Object.fromEntries(
    columns.map((column) => {
      const cell = Object.hasOwn(cells, column.id) ? cells[column.id] : null;
      return [column.name, cell === null || cell === undefined ? null : String(cell)];
    }),
  );
}
