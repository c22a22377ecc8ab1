/**
 * Whole bodies that are not the JSON the operation wants: malformed JSON, nesting far past the limit, invalid
 * UTF-8 and other encodings, other content types, bodies at and over the 32 MB limit, sent with a
 * Content-Length or chunked. Each is a recipe applied to a valid body's JSON text when the request is built,
 * so a case stays small to print however big its body is.
 */
import * as fc from "fast-check";

export interface RawBody {
  label: string;
  contentType: string | null;
  chunked: boolean;
  make(validJson: string): Uint8Array;
}

const JSON_TYPE = "application/json";
const MAX_BODY_BYTES = 32 * 1024 * 1024;
const encoder = new TextEncoder();

/** Position just inside the first string value of a JSON text (after `:"`), or 0. */
function firstStringValue(text: string): number {
  const at = text.indexOf(':"');
  return at < 0 ? 0 : at + 2;
}

const insertInFirstString = (text: string, inserted: string) => {
  const at = firstStringValue(text);
  return `${text.slice(0, at)}${inserted}${text.slice(at)}`;
};

const duplicateFirstKey = (text: string) => text.replace(/^\{\s*("(?:[^"\\]|\\.)*")\s*:/, "{$1:null,$1:");

const MALFORMED: ReadonlyArray<readonly [string, (valid: string) => string]> = [
  ["truncated JSON", (v) => v.slice(0, Math.floor(v.length / 2))],
  ["a trailing comma", (v) => v.replace(/}\s*$/, ",}")],
  ["single quotes", (v) => v.replaceAll('"', "'")],
  ["a comment", (v) => `/* comment */${v}`],
  ["two JSON documents", (v) => `${v}${v}`],
  ["a byte order mark", (v) => `\ufeff${v}`],
  ["NaN", () => '{"value":NaN}'],
  ["an empty body", () => ""],
  ["only whitespace", () => " \n\t "],
  ["null", () => "null"],
  ["true", () => "true"],
  ["a number", () => "0"],
  ["a string", () => '"text"'],
  ["an empty array", () => "[]"],
  ["an array of the body", (v) => `[${v}]`],
  ["an empty object", () => "{}"],
  ["a duplicated key", duplicateFirstKey],
  ["an unterminated string", (v) => v.slice(0, firstStringValue(v) + 3)],
  ["a raw control character in a string", (v) => insertInFirstString(v, "\u0001")],
  ["an escaped lone surrogate", (v) => insertInFirstString(v, "\\ud800")],
  ["an escaped reversed surrogate pair", (v) => insertInFirstString(v, "\\udc00\\ud800")],
  ["an escaped NUL", (v) => insertInFirstString(v, "\\u0000")],
  ["an invalid escape", (v) => insertInFirstString(v, "\\x41")],
  ["a number of 100,000 digits", () => `{"n":1${"0".repeat(100_000)}}`],
  ["65 levels of arrays", () => `${"[".repeat(65)}${"]".repeat(65)}`],
  ["65 levels of objects", () => `${'{"a":'.repeat(64)}{}${"}".repeat(64)}`],
  ["10,000 levels of arrays", () => `${"[".repeat(10_000)}${"]".repeat(10_000)}`],
  ["100,000 levels of objects", () => `${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}`],
  ["1,000,000 unclosed arrays", () => "[".repeat(1_000_000)],
  ["100,000 keys", () => `{${Array.from({ length: 100_000 }, (_, i) => `"k${i}":${i}`).join(",")}}`],
  ["a string of 5,000,000 characters", () => `{"text":"${"a".repeat(5_000_000)}"}`],
];

/** Byte sequences that are not UTF-8: a stray byte, overlong NUL, an encoded surrogate, beyond U+10FFFF, truncated. */
const INVALID_UTF8: ReadonlyArray<readonly [string, number[]]> = [
  ["byte FF", [0xff]],
  ["a lone continuation byte", [0x80]],
  ["an overlong NUL (C0 80)", [0xc0, 0x80]],
  ["an overlong slash (E0 80 AF)", [0xe0, 0x80, 0xaf]],
  ["an encoded surrogate (ED A0 80)", [0xed, 0xa0, 0x80]],
  ["a code point beyond U+10FFFF", [0xf4, 0x90, 0x80, 0x80]],
  ["a truncated sequence (E2 82)", [0xe2, 0x82]],
  ["a five-byte sequence", [0xf8, 0x88, 0x80, 0x80, 0x80]],
];

function withBytes(valid: string, bytes: number[]): Uint8Array {
  const at = encoder.encode(valid.slice(0, firstStringValue(valid))).length;
  const encoded = encoder.encode(valid);
  return new Uint8Array([...encoded.subarray(0, at), ...bytes, ...encoded.subarray(at)]);
}

function utf16(text: string, littleEndian: boolean): Uint8Array {
  const bytes = new Uint8Array(2 + text.length * 2);
  const view = new DataView(bytes.buffer);
  view.setUint16(0, 0xfeff, littleEndian);
  for (let i = 0; i < text.length; i++) view.setUint16(2 + i * 2, text.charCodeAt(i), littleEndian);
  return bytes;
}

const latin1 = (text: string) => Uint8Array.from(insertInFirstString(text, "é"), (c) => c.charCodeAt(0) & 0xff);

const OTHER_ENCODINGS: ReadonlyArray<readonly [string, (valid: string) => Uint8Array]> = [
  ["UTF-16LE with a byte order mark", (v) => utf16(v, true)],
  ["UTF-16BE with a byte order mark", (v) => utf16(v, false)],
  ["Latin-1 (é as E9)", latin1],
];

const CONTENT_TYPES: readonly (string | null)[] = [
  null,
  "",
  "text/plain",
  "text/json",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=fuzz",
  "application/xml",
  "application/octet-stream",
  "application/json; charset=utf-16",
  "application/json; charset=iso-8859-1",
  'application/json; charset="utf-8"',
  "APPLICATION/JSON",
  "application/json;",
  "application/json ; charset=utf-8",
  "application/vnd.api+json",
  "application/merge-patch+json",
  "application/jsonx",
  "application/json, text/plain",
  "*/*",
  "json",
];

interface Recipe {
  label: string;
  contentType: string | null;
  make(valid: string): Uint8Array;
}

const recipe = (
  label: string,
  make: (valid: string) => Uint8Array,
  contentType: string | null = JSON_TYPE,
): Recipe => ({
  label,
  contentType,
  make,
});

const withBody = (valid: string) => encoder.encode(valid);

/** A body one byte over the limit (a JSON string pads it). */
export const OVER_THE_LIMIT = recipe("32 MiB + 1 byte", () => {
  const head = '{"pad":"';
  return encoder.encode(`${head}${"a".repeat(MAX_BODY_BYTES + 1 - head.length - 2)}"}`);
});

const RECIPES: readonly Recipe[] = [
  ...MALFORMED.map(([label, make]) => recipe(label, (v) => encoder.encode(make(v)))),
  ...INVALID_UTF8.map(([label, bytes]) =>
    recipe(`the valid body with ${label} in a string`, (v) => withBytes(v, bytes)),
  ),
  ...OTHER_ENCODINGS.map(([label, make]) => recipe(`the valid body in ${label}`, make)),
  ...CONTENT_TYPES.map((type) => recipe(`the valid body as ${type ?? "(no Content-Type)"}`, withBody, type)),
  OVER_THE_LIMIT,
  recipe("32 MiB: the valid body and spaces", (v) => {
    const padded = new Uint8Array(MAX_BODY_BYTES).fill(0x20);
    padded.set(encoder.encode(v));
    return padded;
  }),
];

export const asRawBody = (from: Recipe, chunked: boolean): RawBody => ({ ...from, chunked });

export const rawBodies: fc.Arbitrary<RawBody> = fc
  .tuple(fc.constantFrom(...RECIPES), fc.boolean())
  .map(([from, chunked]) => asRawBody(from, chunked));
