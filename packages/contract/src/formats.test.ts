/** The formats enforced with the spec's meaning (formats.ts), through the generated schemas that use them. */
import { describe, expect, it } from "vitest";
import { CreatedBeforeParamsSchema, CreateProviderRequestSchema, LimitParamsSchema } from "./generated/routes.ts";

describe("format uri", () => {
  const baseUrl = (value: string) =>
    CreateProviderRequestSchema.safeParse({ provider: "openai-compatible", displayName: "x", baseUrl: value }).success;

  it("takes RFC 3986 URIs and refuses what only the WHATWG parser takes", () => {
    expect(baseUrl("http://127.0.0.1:8080/v1")).toBe(true);
    expect(baseUrl("https://gateway.example.com/openai/v1?tenant=a%20b")).toBe(true);
    for (const notUri of ["http://a/b c", "https://example.com/ü", "not a url", ""]) {
      expect(baseUrl(notUri), notUri).toBe(false);
    }
  });
});

describe("integer query parameters", () => {
  it("read digits, and refuse an empty value, signs of other notations and fractions", () => {
    expect(CreatedBeforeParamsSchema.parse("1732190400000")).toBe(1732190400000);
    expect(LimitParamsSchema.parse(undefined)).toBe(50);
    for (const bad of ["", " ", " 7", "1e3", "0x10", "1.5", "+1", "9".repeat(20)]) {
      expect(CreatedBeforeParamsSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });
});
