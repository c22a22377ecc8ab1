import { describe, expect, it } from "vitest";
import { checkMaskingRules, MAX_PROGRAM_SIZE, Masker, passesLuhn } from "./masking-rules.ts";

describe("passesLuhn", () => {
  it.each([
    ["4111111111111111", true], // Visa test number
    ["5555555555554444", true], // Mastercard
    ["378282246310005", true], // American Express (15 digits)
    ["6011111111111117", true], // Discover
    ["79927398713", true], // the textbook example
    ["4111111111111112", false],
    ["1234567812345678", false],
    ["79927398710", false],
    ["", false],
  ])("%s → %s", (digits, valid) => {
    expect(passesLuhn(digits)).toBe(valid);
  });
});

describe("built-in detectors", () => {
  const mask = (detector: "email" | "phone" | "creditCard" | "apiKey", text: string) =>
    new Masker([{ detector }]).mask(text);

  it("masks card numbers that pass the Luhn check, grouped or not, and keeps the others", () => {
    expect(mask("creditCard", "pay 4111 1111 1111 1111 now")).toBe("pay [CREDIT_CARD] now");
    expect(mask("creditCard", "pay 4111-1111-1111-1111")).toBe("pay [CREDIT_CARD]");
    expect(mask("creditCard", "amex 378282246310005.")).toBe("amex [CREDIT_CARD].");
    expect(mask("creditCard", "order 4111111111111112")).toBe("order 4111111111111112");
    expect(mask("creditCard", "at 1732190400000 ms")).toBe("at 1732190400000 ms");
  });

  it("masks e-mail addresses, phone numbers and API keys", () => {
    expect(mask("email", "to a.b+c@mail.example.co.uk, x@y")).toBe("to [EMAIL], x@y");
    expect(mask("phone", "call +1 415 555 2671 or (415) 555-2671 or +442071838750")).toBe(
      "call [PHONE] or [PHONE] or [PHONE]",
    );
    expect(mask("phone", "order 8812, id 1732190400000, date 2024-11-25")).toBe(
      "order 8812, id 1732190400000, date 2024-11-25",
    );
    expect(mask("apiKey", "key sk-proj-abcdefghijklmnopqrstuvwx123456 and AKIAIOSFODNN7EXAMPLE")).toBe(
      "key [API_KEY] and [API_KEY]",
    );
    expect(mask("apiKey", "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc")).toBe(
      "Authorization: [API_KEY]",
    );
    expect(mask("apiKey", "trace_01JD8Q4KZ8T6V2M3N4P5Q6R7S8 is an id")).toBe(
      "trace_01JD8Q4KZ8T6V2M3N4P5Q6R7S8 is an id",
    );
  });

  it("applies rules in order with their placeholders; a placeholder is literal text ($1 stays $1)", () => {
    const masker = new Masker([
      { detector: "regex", pattern: "(secret)-[0-9]+", placeholder: "$1" },
      { detector: "email", placeholder: "<mail>" },
    ]);
    expect(masker.mask("secret-42 to bob@example.com")).toBe("$1 to <mail>");
  });

  it("keeps text outside the Basic Multilingual Plane intact around matches", () => {
    expect(new Masker([{ detector: "email" }]).mask("😀 bob@example.com 😀")).toBe("😀 [EMAIL] 😀");
  });
});

describe("checkMaskingRules", () => {
  it.each([
    ["(a", "not a regular expression"],
    ["(a)\\1", "not a regular expression"],
    ["foo(?=bar)", "not a regular expression"],
    ["a*", "must not match the empty string"],
  ])("refuses the pattern %s", async (pattern, issue) => {
    const [problem] = await checkMaskingRules([{ detector: "regex", pattern }], "maskingRules");
    expect(problem?.field).toBe("maskingRules.0.pattern");
    expect(problem?.issue).toContain(issue);
  });

  it("wants a pattern exactly for regex rules", async () => {
    expect(await checkMaskingRules([{ detector: "regex" }, { detector: "email", pattern: "x" }], "r")).toEqual([
      { field: "r.0.pattern", issue: 'is required for a "regex" rule' },
      { field: "r.1.pattern", issue: 'is only for "regex" rules' },
    ]);
    expect(await checkMaskingRules([{ detector: "regex", pattern: "(a+)+b" }, { detector: "phone" }], "r")).toEqual([]);
  });

  it(`refuses a program of more than MAX_PROGRAM_SIZE (${MAX_PROGRAM_SIZE}) instructions, whatever its speed`, async () => {
    // \w{1000} keeps about a thousand threads alive on a run of letters: seconds per 100 KB.
    expect(await checkMaskingRules([{ detector: "regex", pattern: String.raw`\w{1000}` }], "r")).toEqual([
      {
        field: "r.0.pattern",
        issue: expect.stringMatching(/^runs too long: it compiles to 1002 RE2 instructions, more than \d+/),
      },
    ]);
    // A long alternation of literals is a large program too, but well within the bound.
    const names = Array.from({ length: 30 }, (_, index) => `customer-${index}`).join("|");
    expect(await checkMaskingRules([{ detector: "regex", pattern: names }], "r")).toEqual([]);
  });

  it("refuses a pattern that costs many times the slowest built-in detector on the probe texts", async () => {
    // .{600} is within the size bound but tens of times costlier than the API-key detector on every probe.
    const [problem] = await checkMaskingRules(
      [
        { detector: "regex", pattern: "secret-[0-9]+" },
        { detector: "regex", pattern: ".{600}" },
      ],
      "r",
    );
    expect(problem).toEqual({
      field: "r.1.pattern",
      issue: expect.stringMatching(/^runs too long: masking the probe texts took \d+ ms, more than 5 times/),
    });
  });

  it("runs a catastrophic-backtracking pattern in linear time", () => {
    // `(a+)+b` on a backtracking engine takes about 2^n steps on n a's and no b: n = 100,000 would never end.
    const masker = new Masker([{ detector: "regex", pattern: "(a+)+b", placeholder: "#" }]);
    const text = `${"a".repeat(100_000)}c`;
    expect(masker.mask(text)).toBe(text);
    expect(masker.mask("xaab")).toBe("x#");
  });
});
