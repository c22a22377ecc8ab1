/**
 * CSV for exports (RFC 4180): a header row, one row per item, CRLF line ends; a field holding a comma, a double
 * quote, CR or LF enclosed in double quotes with its quotes doubled. Values: text as it is, numbers as JSON
 * writes them, `true`/`false`, null (or absent) as an empty field, objects and arrays as their JSON text.
 */
import type { ExportWriter } from "./ndjson.ts";

const NEEDS_QUOTES = /[",\r\n]/;

export function csvField(value: unknown): string {
  if (value === null || value === undefined) return "";
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export const csvRow = (fields: readonly unknown[]) => `${fields.map(csvField).join(",")}\r\n`;

/**
 * An export as CSV of `columns` of its items, then `nextCursor`: the checkpoint cursor on the last row of every
 * page that has a next one, empty elsewhere. A complete body needs no end: a failure aborts the response.
 */
export function csvWriter(columns: readonly string[]): ExportWriter {
  return {
    start: csvRow([...columns, "nextCursor"]),
    page(items, nextCursor) {
      let text = "";
      items.forEach((item, index) => {
        const record = item as Record<string, unknown>;
        const checkpoint = index === items.length - 1 ? nextCursor : null;
        text += csvRow([...columns.map((column) => record[column]), checkpoint]);
      });
      return text;
    },
    end: () => "",
  };
}
