/**
 * The trace list's optional columns (name, status and start time always show) and the person's choice of them,
 * kept in local storage so it survives reloads. Free of React and of the storage itself so it is tested alone.
 */
export const COLUMNS = [
  { id: "latency", label: "Latency" },
  { id: "tokens", label: "Tokens" },
  { id: "cost", label: "Cost" },
  { id: "session", label: "Session" },
  { id: "user", label: "User" },
  { id: "tags", label: "Tags" },
  { id: "scores", label: "Scores" },
] as const;

export type ColumnId = (typeof COLUMNS)[number]["id"];

export const DEFAULT_COLUMNS: readonly ColumnId[] = ["latency", "tokens", "cost", "session", "tags"];
export const COLUMNS_STORAGE_KEY = "pharos.traceColumns";

/** The stored choice (a JSON array of ids), in the table's order; unknown ids dropped, the default if unreadable. */
export function readColumns(stored: string | null): ColumnId[] {
  let ids: unknown;
  try {
    ids = stored === null ? null : JSON.parse(stored);
  } catch {
    ids = null;
  }
  if (!Array.isArray(ids)) return [...DEFAULT_COLUMNS];
  return COLUMNS.map((column) => column.id).filter((id) => ids.includes(id));
}

/** The choice with `id` shown or hidden, still in the table's order. */
export function toggleColumn(columns: readonly ColumnId[], id: ColumnId, shown: boolean): ColumnId[] {
  return COLUMNS.map((column) => column.id).filter((candidate) =>
    candidate === id ? shown : columns.includes(candidate),
  );
}
