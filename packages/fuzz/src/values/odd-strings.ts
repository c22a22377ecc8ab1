/**
 * Strings that have broken servers: control characters, lone surrogates, byte order marks, bidirectional and
 * zero-width controls, emoji and combining marks (whose length differs in code units, code points and
 * graphemes), template and injection syntax, prototype keys, and very long text.
 */
import * as fc from "fast-check";

export const ODD_STRINGS: readonly string[] = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "\udfff",
  "a\ud83d",
  "\udc00a",
  "\ufeff",
  "\ufeffvalue",
  "\u202eevil\u202c",
  "\u200b\u200c\u200d\u2060",
  "\u2028\u2029",
  "\r\n\t\u000b\f",
  "\u0001\u001f\u007f\u0080\u009f",
  "\ufffd\ufffe\uffff",
  "\u{10ffff}\u{e0001}",
  "😀",
  "👨‍👩‍👧‍👦",
  "🏳️‍🌈",
  "e\u0301\u0301\u0301\u0301",
  "Z\u0351\u036b\u0343\u036a\u0302\u036b\u033d\u034f\u0334\u0319\u0324\u031e\u0349\u035a\u032f\u031e\u0320\u034d",
  "ｆｕｌｌｗｉｄｔｈ",
  "𝕳𝖊𝖑𝖑𝖔",
  "مرحبا بالعالم",
  "%00",
  "%FF",
  "\\u0000",
  "{{question}}",
  "{{",
  "}}{{",
  "{{#each}}{{/each}}",
  "$" + "{process.exit()}",
  "'; drop table projects; --",
  '"',
  "\\",
  "<script>alert(1)</script>",
  "../../etc/passwd",
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "NaN",
  "null",
  "-0",
  "1e400",
];

const LONG_STRINGS: readonly string[] = [
  "a".repeat(10_000),
  "é".repeat(10_000),
  "😀".repeat(5_000),
  "e\u0301".repeat(5_000),
  "\ud800".repeat(1_000),
  "a".repeat(1_000_000),
];

/** One odd character, or any code point. */
const oddUnit = fc.oneof(
  fc.constantFrom(..."\u0000\ud800\udfff\ufeff\u202e\u200b\u0301\u2028\uffff\u0085".split(""), "😀", "\u{10ffff}"),
  fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
);

/** Odd strings: the list above, long ones, and short strings built from odd characters. */
export const oddString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...ODD_STRINGS) },
  { weight: 1, arbitrary: fc.constantFrom(...LONG_STRINGS) },
  { weight: 3, arbitrary: fc.string({ unit: oddUnit, maxLength: 24 }) },
);
