/** How dataset cells read on screen and how what a person types becomes a cell value again. */
import type { Schemas } from "../api.ts";
import { formatCost, formatLatency } from "../format.ts";

type CellValue = Schemas["DatasetCellValue"];
type Row = Schemas["DatasetRow"];
type Column = Schemas["DatasetColumn"];

export const cellText = (value: CellValue | undefined): string =>
  value === null || value === undefined ? "" : String(value);

/**
 * The value typed into a cell's field. Empty is an empty cell; a cell that held a number or a boolean keeps its
 * kind when the text still reads as one (so editing `3` to `4` stores the number 4), anything else is text.
 */
export function cellValue(text: string, previous: CellValue | undefined): CellValue {
  if (text === "") return null;
  if (typeof previous === "number" && text.trim() !== "" && Number.isFinite(Number(text))) return Number(text);
  if (typeof previous === "boolean" && (text === "true" || text === "false")) return text === "true";
  return text;
}

/** The cells of `values` whose text the person changed, as the request's values (keyed by column id). */
export function changedValues(row: Row, edited: Record<string, string>): Schemas["DatasetRowValues"] {
  return Object.fromEntries(
    Object.entries(edited)
      .filter(([columnId, text]) => text !== cellText(row.values[columnId]))
      .map(([columnId, text]) => [columnId, cellValue(text, row.values[columnId])]),
  );
}

export const isComputed = (column: Column) => column.type !== "static";

/** Whether any computed cell of these rows is still being computed (the screen then polls). */
export const anyPending = (rows: readonly Row[] | undefined): boolean =>
  (rows ?? []).some((row) => Object.values(row.computed ?? {}).some((cell) => cell.status === "pending"));

/** A computed cell's state in words: `pending`, `done · 412 ms · $0.000021`, `failed: <reason>`. */
export function computedStatusText(cell: Schemas["ComputedCell"]): string {
  if (cell.status === "pending") return "pending";
  if (cell.status === "failed") return `failed: ${cell.reason ?? "no reason given"}`;
  const facts = [
    cell.latency === null ? null : formatLatency(cell.latency),
    cell.cost === null ? null : formatCost(cell.cost),
  ];
  return ["done", ...facts.filter((fact) => fact !== null)].join(" · ");
}
