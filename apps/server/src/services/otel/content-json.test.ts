/**
 * jsonText writes what JSON.stringify writes, and that text as JSON.stringify quotes it, for every kind of
 * value the mapping builds: text with and without characters to escape (quotes, backslashes, control
 * characters, lone and paired surrogates, U+2028), numbers (-0, fractions, non-finite), nested lists and maps,
 * keys that need escaping or are named __proto__, and members that JSON leaves out.
 */
import { describe, expect, it } from "vitest";
import { seededRandom } from "../../testing/seeded-random.ts";
import { jsonText } from "./content-json.ts";

const TEXTS = [
  "",
  "plain prose of the messages",
  'a "quoted" word',
  "back\\slash",
  "line\nbreak\ttab\r\u0000nul\u001f",
  "lone \ud800 high",
  "lone \udc00 low",
  "pair \ud83d\ude00",
  "separators \u2028\u2029",
  "ünïcödé ✓",
];
const NUMBERS = [0, -0, 1, -1.5, 1e21, 5e-324, Number.NaN, Number.POSITIVE_INFINITY, 42];

function randomValue(random: ReturnType<typeof seededRandom>, depth: number): unknown {
  const kind = random.int(depth > 3 ? 4 : 7);
  if (kind === 0) return random.pick(TEXTS) + random.pick(TEXTS);
  if (kind === 1) return random.pick(NUMBERS);
  if (kind === 2) return random.pick([true, false, null]);
  if (kind === 3) return random.pick(TEXTS);
  if (kind === 4) return Array.from({ length: random.int(4) }, () => randomValue(random, depth + 1));
  const object: Record<string, unknown> = {};
  for (let index = random.int(4); index > 0; index--) {
    const key = random.pick([...TEXTS, "role", "__proto__", "1", "content"]);
    Object.defineProperty(object, key, {
      value: random.int(8) === 0 ? undefined : randomValue(random, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return object;
}

describe("jsonText", () => {
  it("is JSON.stringify's text and its quoted form for the messages the mapping builds", () => {
    const messages = {
      messages: [
        { role: "user", content: [{ modality: "text", value: 'say "hi"\n' }] },
        { role: "assistant", content: [{ modality: "tool-call", index: 0, id: "c", name: "f", arguments: "{}" }] },
      ],
      tokenUsage: { promptTokens: 3, completionTokens: 0, totalTokens: 3 },
    };
    expect(jsonText(messages)).toEqual({
      text: JSON.stringify(messages),
      quoted: JSON.stringify(JSON.stringify(messages)),
    });
  });

  it("is JSON.stringify's for random values", () => {
    const random = seededRandom(14);
    for (let run = 0; run < 2_000; run++) {
      const value = randomValue(random, 0);
      const text = JSON.stringify(value);
      expect(jsonText(value), `run ${run}`).toEqual({ text, quoted: JSON.stringify(text) });
    }
  });

  it("writes null for what JSON leaves out of a list, and leaves it out of a map", () => {
    const value = { list: [undefined, () => 1, Symbol("s")], gone: undefined, kept: 1 };
    expect(jsonText(value).text).toBe(JSON.stringify(value));
  });
});
