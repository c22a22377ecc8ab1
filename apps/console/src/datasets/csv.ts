/**
 * CSV (or tab-separated text pasted from a spreadsheet) to dataset rows. Papa Parse does the parsing; this maps
 * its records onto the dataset's columns by header name and cuts them into the API's batches.
 */
import Papa from "papaparse";
import type { Schemas } from "../api.ts";

type RowValues = Schemas["DatasetRowValues"];

/** Rows a single `createDatasetRows` request may carry. */
export const ROWS_PER_REQUEST = 100;

export interface CsvImport {
  /** Header names, in file order, blank ones dropped. */
  headers: string[];
  /** Headers that name no column of the dataset: their cells are not imported unless the columns are created. */
  unknownHeaders: string[];
  /** One entry per data line, keyed by column name; an empty field is an empty cell (`null`). */
  rows: RowValues[];
  /** Papa Parse's complaints (unclosed quotes, lines with too many or too few fields), with their line. */
  problems: string[];
}

/** Parses `text` (first line: column names; delimiter detected) against the dataset's column names. */
export function parseCsv(text: string, columnNames: readonly string[]): CsvImport {
  const parsed = Papa.parse<Record<string, string | undefined>>(text.trim(), {
    header: true,
    skipEmptyLines: "greedy",
    transformHeader: (header) => header.trim(),
  });
  const headers = (parsed.meta.fields ?? []).filter((header) => header !== "");
  const known = new Set(columnNames);
  const imported = headers.filter((header) => known.has(header));
  const rows = parsed.data.map((record) =>
    Object.fromEntries(imported.map((header) => [header, record[header] ? record[header] : null])),
  );
  const problems = parsed.errors.map((error) =>
    error.row === undefined ? error.message : `Line ${error.row + 2}: ${error.message}`,
  );
  return { headers, unknownHeaders: headers.filter((header) => !known.has(header)), rows, problems };
}

/** `rows` in consecutive batches the API accepts. */
export function batches<T>(rows: readonly T[], size = ROWS_PER_REQUEST): T[][] {
  const parts: T[][] = [];
  for (let start = 0; start < rows.length; start += size) parts.push(rows.slice(start, start + size));
  return parts;
}
