import type { Logger } from "pino";

/** What an export yields: one page of items and the cursor after it (null after the last page). */
export interface ExportPage {
  items: readonly unknown[];
  pagination: { nextCursor: string | null };
}

const encoder = new TextEncoder();
const line = (value: unknown) => `${JSON.stringify(value)}\n`;

/** How an export writes its pages as text: what comes before them, each page, and what ends a complete body. */
export interface ExportWriter {
  start: string;
  /** A page's items; `nextCursor` is the checkpoint after them (null after the last page), `exported` counts them. */
  page(items: readonly unknown[], nextCursor: string | null, exported: number): string;
  end(exported: number): string;
}

/** NDJSON (see POST /logs/spans/export): an item per line, a checkpoint line after every page but the last, an end line. */
export const ndjsonWriter: ExportWriter = {
  start: "",
  page(items, nextCursor, exported) {
    let text = "";
    for (const item of items) text += line(item);
    if (nextCursor !== null) text += line({ nextCursor, exported });
    return text;
  },
  end: (exported) => line({ end: true, exported }),
};

/** An export's NDJSON body (`ndjsonWriter`, written by `exportBody`). */
export const ndjsonExport = (
  first: IteratorResult<ExportPage, void>,
  rest: AsyncGenerator<ExportPage, void, undefined>,
  logger: Logger,
) => exportBody(first, rest, logger, ndjsonWriter);

/**
 * An export's body: each page's items as `writer` writes them (NDJSON, CSV). Pull-based: the next page is read
 * only when the client has taken the previous one (the stream's queue holds none ahead), so memory stays one
 * page whatever the export's size. A failure after the first byte can only end the stream: it is logged and
 * the body errors, without what ends a complete body, which is how the client knows.
 */
export function exportBody(
  first: IteratorResult<ExportPage, void>,
  rest: AsyncGenerator<ExportPage, void, undefined>,
  logger: Logger,
  writer: ExportWriter,
): ReadableStream<Uint8Array> {
  let pending: IteratorResult<ExportPage, void> | undefined = first;
  let exported = 0;
  let started = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const result = pending ?? (await rest.next());
          pending = undefined;
          const start = started ? "" : writer.start;
          started = true;
          if (result.done) {
            controller.enqueue(encoder.encode(start + writer.end(exported)));
            controller.close();
            return;
          }
          const { items, pagination } = result.value;
          exported += items.length;
          controller.enqueue(encoder.encode(start + writer.page(items, pagination.nextCursor, exported)));
        } catch (error) {
          logger.error({ err: error, exported }, "export failed after its first byte: the stream ends without its end");
          controller.error(error);
        }
      },
      async cancel() {
        await rest.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
}
