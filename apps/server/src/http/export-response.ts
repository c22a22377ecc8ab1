/**
 * The body of a log export in the format its request asks for (POST /logs/spans/export, /logs/traces/export):
 * NDJSON lines, or CSV rows whose columns are the item schema's fields in the spec's order.
 */
import { openapiDocument } from "@pharos/contract";
import type { Logger } from "pino";
import { csvWriter } from "./csv.ts";
import { type ExportPage, exportBody, ndjsonWriter } from "./ndjson.ts";

const { LogSpan, LogTrace } = openapiDocument.components.schemas;

/** The CSV columns: every field of the item (the spec lists them all as required), in order. */
export const CSV_COLUMNS = {
  // `parsedContent` is `content` parsed: the text is the CSV field.
  span: LogSpan.required.filter((field) => field !== "parsedContent"),
  trace: [...LogTrace.required],
} as const;

export function exportResponse(
  first: IteratorResult<ExportPage, void>,
  rest: AsyncGenerator<ExportPage, void, undefined>,
  logger: Logger,
  options: { format: "ndjson" | "csv" | undefined; kind: keyof typeof CSV_COLUMNS },
): { contentType: string; body: ReadableStream<Uint8Array> } {
  if (options.format === "csv") {
    const body = exportBody(first, rest, logger, csvWriter(CSV_COLUMNS[options.kind]));
    return { contentType: "text/csv; charset=utf-8; header=present", body };
  }
  return { contentType: "application/x-ndjson", body: exportBody(first, rest, logger, ndjsonWriter) };
}
