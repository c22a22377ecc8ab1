/** The API's limits on log writes (openapi/paths/logs_trace.yaml, logs_span.yaml), which the monitor respects. */

/** Spans one POST /logs/trace may carry; the rest of a larger trace goes by POST /logs/span. */
export const MAX_SPANS_PER_TRACE_REQUEST = 1_000;
/** Spans one trace may hold (POST /logs/span answers 409 beyond): later ones are dropped, counted. */
export const MAX_SPANS_PER_TRACE = 10_000;
/** A span's content as compact JSON (or its JSON text as given), in UTF-8 bytes: larger is 413, so dropped. */
export const MAX_CONTENT_BYTES = 1_048_576;
/** A request body (413 beyond). */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;

/**
 * The UTF-8 size of a string without encoding it. Only called when the string could be over a limit: below a
 * third of it, a string of UTF-16 code units fits whatever it holds (at most 3 bytes per unit).
 */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      // A surrogate pair: two units, four bytes.
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 2;
        i++;
      } else bytes += 2;
    } else bytes += 2;
  }
  return bytes;
}

/** Whether `text` is at most `limit` UTF-8 bytes, counting only when the answer is not obvious. */
export const fitsBytes = (text: string, limit: number) =>
  text.length * 3 <= limit || (text.length <= limit && utf8Length(text) <= limit);
