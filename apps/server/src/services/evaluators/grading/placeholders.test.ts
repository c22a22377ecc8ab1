import { describe, expect, it } from "vitest";
import { fillPlaceholders, fillRegexPlaceholders } from "./placeholders.ts";

describe("fillPlaceholders", () => {
  it("replaces every placeholder that names a variable", () => {
    expect(fillPlaceholders("{{a}} and {{b-2}} and {{a}}", { a: "x", "b-2": "y" })).toBe("x and y and x");
  });

  it("leaves placeholders without a value, and names that are not placeholders, as written", () => {
    expect(fillPlaceholders("{{missing}} {{ a }} {{}} {a}", { a: "x" })).toBe("{{missing}} {{ a }} {{}} {a}");
    expect(fillPlaceholders("{{constructor}}", {})).toBe("{{constructor}}");
    expect(fillPlaceholders(`{{${"n".repeat(65)}}}`, { ["n".repeat(65)]: "x" })).toBe(`{{${"n".repeat(65)}}}`);
  });

  it("inserts values literally, including replacement patterns", () => {
    expect(fillPlaceholders("[{{a}}]", { a: "$& $1 {{a}}" })).toBe("[$& $1 {{a}}]");
  });
});

describe("fillRegexPlaceholders", () => {
  it("escapes inserted values so that they match literally", () => {
    const pattern = fillRegexPlaceholders("^{{price}}$", { price: "$1.50 (a+b)*[x]{2}|\\/^-" });
    expect(new RegExp(pattern).test("$1.50 (a+b)*[x]{2}|\\/^-")).toBe(true);
    expect(new RegExp(pattern).test("$1x50 (a+b)*[x]{2}|\\/^-")).toBe(false);
  });

  it("escapes inside a character class too", () => {
    const pattern = fillRegexPlaceholders("^[{{chars}}]+$", { chars: "a-z" });
    expect(new RegExp(pattern).test("a-z")).toBe(true);
    expect(new RegExp(pattern).test("m")).toBe(false);
  });

  it("keeps the pattern around the placeholders as a regular expression", () => {
    expect(fillRegexPlaceholders("\\d+ {{unit}}s?", { unit: "kg." })).toBe("\\d+ kg\\.s?");
  });
});
