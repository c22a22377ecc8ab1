/** Text as it goes into a URL. */
import { RawJson, toJsonText, type Value } from "../values/json-value.ts";

/**
 * Percent-encodes every code unit that is not unreserved, a lone surrogate as the three bytes UTF-8 would give
 * it (invalid UTF-8, as a client that encodes WTF-8 sends), where encodeURIComponent would throw.
 */
export function percentEncode(text: string, limit = Number.POSITIVE_INFINITY): string {
  let encoded = "";
  for (const char of text) {
    if (encoded.length >= limit) break;
    const code = char.codePointAt(0) as number;
    if (code >= 0xd800 && code <= 0xdfff) {
      const bytes = [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)];
      encoded += bytes.map((byte) => `%${byte.toString(16).toUpperCase()}`).join("");
    } else {
      encoded += encodeURIComponent(char);
    }
  }
  return encoded;
}

/** A body value written as a query or path parameter would carry it, encoded (about `limit` characters at most). */
export function parameterText(value: Value, limit = Number.POSITIVE_INFINITY): string {
  if (typeof value === "string") return percentEncode(value, limit);
  if (value instanceof RawJson) return percentEncode(value.text, limit);
  if (Array.isArray(value))
    return value
      .map((item) => parameterText(item, limit))
      .join(",")
      .slice(0, limit);
  if (value !== null && typeof value === "object") return percentEncode(toJsonText(value), limit);
  return String(value);
}
