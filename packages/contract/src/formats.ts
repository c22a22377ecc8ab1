/**
 * Formats of the spec enforced with the meaning the spec gives them, where zod's own check means something
 * else. scripts/hono-takibi-patches.ts attaches these to the generated schemas.
 */
import { fullFormats } from "ajv-formats/dist/formats.js";

const uriFormat = fullFormats.uri as (value: string) => boolean;

/**
 * `format: uri` is an RFC 3986 URI, as JSON Schema and the conformance kit's validator (ajv-formats) read it.
 * zod's `z.url()` is the WHATWG URL parser, which also takes strings that are no URI (`http://a/b c`) and stores
 * them as sent, so a response carrying one breaks the spec.
 */
export const uriCheck: [(value: string) => boolean, { error: string }] = [
  (value) => uriFormat(value),
  { error: "must be a URI (RFC 3986): percent-encode spaces and other characters outside ASCII" },
];

/**
 * An integer query parameter as text: optional minus sign, then digits. `z.coerce.number()` would also read an
 * empty value as 0 and take `1e3`, `0x10` or ` 7`.
 */
export const integerText: [RegExp, { error: string }] = [/^-?\d+$/, { error: "must be an integer (digits only)" }];
