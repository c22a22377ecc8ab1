import type { Logger } from "pino";

/** What an export yields: one page of items and the cursor after it (null after the last page). */
export interface ExportPage {
  items: readonly unknown[];
  pagination: { nextCursor: string | null };
}

const encoder = new TextEncoder();
const line = (value: unknown) => `${JSON.stringify(value)}\n`;

/**
 * An export's NDJSON body (see POST /logs/spans/export): each page's items, one per line, serialized as a
 * search page's JSON serializes them; a checkpoint `{"nextCursor","exported"}` after every page that has a
 * next one; `{"end":true,"exported"}` at the end. Pull-based: the next page is read only when the client has
 * taken the previous one (the stream's queue holds none ahead), so memory stays one page whatever the export's
 * size. A failure after the first byte can only end the stream: it is logged and the body errors, without
 * the `end` line, which is how the client knows.
 */
export function ndjsonExport(
  first: IteratorResult<ExportPage, void>,
  rest: AsyncGenerator<ExportPage, void, undefined>,
  logger: Logger,
): ReadableStream<Uint8Array> {
  let pending: IteratorResult<ExportPage, void> | undefined = first;
  let exported = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const result = pending ?? (await rest.next());
          pending = undefined;
          if (result.done) {
            controller.enqueue(encoder.encode(line({ end: true, exported })));
            controller.close();
            return;
          }
          const { items, pagination } = result.value;
          exported += items.length;
          let text = "";
          for (const item of items) text += line(item);
          if (pagination.nextCursor !== null) text += line({ nextCursor: pagination.nextCursor, exported });
          controller.enqueue(encoder.encode(text));
        } catch (error) {
          logger.error(
            { err: error, exported },
            "export failed after its first byte: the stream ends without its end line",
          );
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
