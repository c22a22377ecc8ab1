/**
 * JSON text of a value the OTLP mapping builds for a content's input or output, written together with the
 * form that text takes inside the stored content's JSON (a JSON string: escaped once more).
 *
 * `JSON.stringify(JSON.stringify(value))` reads every character of the messages' text twice, escaping as it
 * goes (about a third of the mapping's time on the bench's spans, whose text is most of what they carry). Text
 * with nothing to escape is the same characters in both forms, between `"` and between `\"`: one check finds
 * that, and both forms are joined from it. Anything else is escaped by JSON.stringify itself.
 */

/** Characters JSON.stringify escapes in a string (quote, backslash, control characters, lone surrogates). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it looks for.
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

export interface JsonText {
  /** `JSON.stringify(value)`. */
  text: string;
  /** `JSON.stringify(text)`: the text as a JSON string. */
  quoted: string;
}

/** `value` (plain JSON data: objects, arrays, text, numbers, booleans, null) as JSON text, in both forms. */
export function jsonText(value: unknown): JsonText {
  const out = { text: "", quoted: "" };
  write(out, value);
  return { text: out.text, quoted: `"${out.quoted}"` };
}

function write(out: { text: string; quoted: string }, value: unknown): void {
  if (typeof value === "string") {
    writeString(out, value);
  } else if (Array.isArray(value)) {
    out.text += "[";
    out.quoted += "[";
    for (let index = 0; index < value.length; index++) {
      if (index > 0) {
        out.text += ",";
        out.quoted += ",";
      }
      // As JSON.stringify writes an array's undefined, function or symbol: null.
      write(out, isOmitted(value[index]) ? null : value[index]);
    }
    out.text += "]";
    out.quoted += "]";
  } else if (value !== null && typeof value === "object") {
    out.text += "{";
    out.quoted += "{";
    let first = true;
    for (const key of Object.keys(value)) {
      const item = (value as Record<string, unknown>)[key];
      if (isOmitted(item)) continue;
      if (!first) {
        out.text += ",";
        out.quoted += ",";
      }
      first = false;
      writeString(out, key);
      out.text += ":";
      out.quoted += ":";
      write(out, item);
    }
    out.text += "}";
    out.quoted += "}";
  } else {
    // Numbers, booleans, null: no character a JSON string escapes.
    const text = JSON.stringify(value) ?? "null";
    out.text += text;
    out.quoted += text;
  }
}

function writeString(out: { text: string; quoted: string }, value: string): void {
  if (NEEDS_ESCAPE.test(value)) {
    const text = JSON.stringify(value);
    out.text += text;
    out.quoted += JSON.stringify(text).slice(1, -1);
  } else {
    out.text += `"${value}"`;
    out.quoted += `\\"${value}\\"`;
  }
}

const isOmitted = (value: unknown) => value === undefined || typeof value === "function" || typeof value === "symbol";
