/**
 * What `prompt` and `api` columns read and in which order they can be computed (ADR 0020). A computed column
 * reads the columns its template names: a prompt column its prompt draft's `{{variables}}`, an api column the
 * `{{placeholders}}` of its URL, header values and body.
 */
import type { schemas } from "@pharos/contract";
import { placeholders, variableList } from "../prompts/template-variables.ts";
import type { ColumnRow } from "./column.ts";

export type ComputedColumnType = "prompt" | "api";

/** The names of the columns an api column's request reads. */
export function apiColumnInputs(settings: schemas.ApiColumnSettings): string[] {
  const texts = [settings.url, ...Object.values(settings.headers), settings.body ?? ""];
  return [...new Set(texts.flatMap(placeholders))];
}

/** The names of the columns a prompt (its draft's messages) reads. */
export function promptColumnInputs(messages: readonly schemas.PromptMessage[]): string[] {
  return variableList(messages).map((variable) => variable.name);
}

export interface ComputedColumn {
  column: ColumnRow;
  /** Names of the columns it reads. */
  inputs: string[];
}

/**
 * Stage of each chosen column within a row: 0 when it reads no other chosen column, else one more than the
 * highest stage among those it reads. Returns the cycle instead (column names, first repeated at the end) when
 * computed columns reachable from the chosen ones read each other in a loop.
 */
export function computeStages(
  computed: readonly ComputedColumn[],
  chosen: ReadonlySet<string>,
): { stages: Map<string, number> } | { cycle: string[] } {
  const byName = new Map(computed.map((entry) => [entry.column.name, entry]));
  const stages = new Map<string, number>();
  const visiting: string[] = [];
  const visit = (entry: ComputedColumn): string[] | undefined => {
    const name = entry.column.name;
    const open = visiting.indexOf(name);
    if (open >= 0) return [...visiting.slice(open), name];
    if (stages.has(entry.column.id)) return undefined;
    visiting.push(name);
    let stage = 0;
    for (const input of entry.inputs) {
      const read = byName.get(input);
      if (!read) continue;
      const cycle = visit(read);
      if (cycle) return cycle;
      if (chosen.has(read.column.id)) stage = Math.max(stage, (stages.get(read.column.id) ?? 0) + 1);
    }
    visiting.pop();
    stages.set(entry.column.id, stage);
    return undefined;
  };
  for (const entry of computed) {
    if (!chosen.has(entry.column.id)) continue;
    const cycle = visit(entry);
    if (cycle) return { cycle };
  }
  return { stages };
}
