import { describe, expect, it } from "vitest";
import { grade } from "./grade.ts";
import { withoutCodeFence } from "./json.ts";
import { noJudge, row } from "./test-support.ts";

const validJson = (output: string | null) =>
  grade({ type: "json", group: "code", mode: "valid-json" }, row({ output }), noJudge);
const exactMatch = (expected: string, output: string, variables: Record<string, string> = {}) =>
  grade({ type: "json", group: "code", mode: "exact-match", expected }, row({ output, variables }), noJudge);
const matchesSchema = (schema: Record<string, unknown>, output: string) =>
  grade({ type: "json", group: "code", mode: "schema", schema }, row({ output }), noJudge);

describe("withoutCodeFence", () => {
  it("trims and removes one surrounding Markdown fence, with or without a language", () => {
    expect(withoutCodeFence('  \n```json\n{"a": 1}\n```\n ')).toBe('{"a": 1}');
    expect(withoutCodeFence("```\n[1, 2]\n```")).toBe("[1, 2]");
    expect(withoutCodeFence("```true```")).toBe("true");
    expect(withoutCodeFence(' {"a": 1} ')).toBe('{"a": 1}');
    expect(withoutCodeFence('Here: ```json\n{"a": 1}\n```')).toBe('Here: ```json\n{"a": 1}\n```');
  });
});

describe("json: valid-json", () => {
  it("passes when the output parses, fenced or not", async () => {
    expect(await validJson('{"answer": "yes"}')).toEqual({ grade: "pass", score: 1, reason: "output is valid JSON" });
    expect((await validJson('```json\n{"answer": "yes"}\n```')).grade).toBe("pass");
    expect((await validJson("```\n42\n```")).grade).toBe("pass");
  });

  it("fails when the output does not parse", async () => {
    const verdict = await validJson("{answer: yes}");
    expect(verdict).toMatchObject({ grade: "fail", score: 0 });
    expect(verdict.reason).toMatch(/^output is not JSON: /);
    expect((await validJson('```json\n{"a": 1}\n``` and more')).grade).toBe("fail");
  });

  it("is unknown when the row produced no output", async () => {
    expect(await validJson(null)).toEqual({ grade: "unknown", score: 0, reason: "the row produced no output" });
  });
});

describe("json: exact-match", () => {
  it("ignores object key order and whitespace", async () => {
    expect(await exactMatch('{"a": 1, "b": {"c": [1, 2]}}', '```json\n{"b":{"c":[1,2]},"a":1}\n```')).toEqual({
      grade: "pass",
      score: 1,
      reason: "output equals the expected JSON",
    });
  });

  it("keeps array order significant and says where the values differ", async () => {
    expect(await exactMatch('{"items": [1, 2]}', '{"items": [2, 1]}')).toMatchObject({
      grade: "fail",
      reason: "differs at $.items[0]: expected 1, got 2",
    });
    expect((await exactMatch("[1, 2]", "[1, 2, 3]")).reason).toBe("differs at $: expected 2 items, got 3");
    expect((await exactMatch('{"a": 1, "b": 2}', '{"a": 1}')).reason).toBe("missing $.b");
    expect((await exactMatch('{"a": 1}', '{"a": 1, "odd key": 2}')).reason).toBe('unexpected $["odd key"]');
    expect((await exactMatch('{"a": null}', '{"a": {}}')).reason).toBe("differs at $.a: expected null, got {}");
    expect((await exactMatch('{"a": []}', '{"a": {}}')).reason).toBe("differs at $.a: expected [], got {}");
    expect((await exactMatch('"1"', "1")).reason).toBe('differs at $: expected "1", got 1');
  });

  it("fills placeholders in expected before parsing it", async () => {
    const variables = { name: "Ann", count: "3" };
    expect(
      (await exactMatch('{"name": "{{name}}", "count": {{count}}}', '{"count": 3, "name": "Ann"}', variables)).grade,
    ).toBe("pass");
    expect((await exactMatch('{"name": "{{name}}"}', '{"name": "Bob"}', variables)).grade).toBe("fail");
  });

  it("is unknown when expected does not parse once filled", async () => {
    const verdict = await exactMatch('{"count": {{count}}}', '{"count": 3}', { count: "three" });
    expect(verdict).toMatchObject({ grade: "unknown", score: 0 });
    expect(verdict.reason).toMatch(/^expected is not JSON once its placeholders are filled: /);
  });

  it("fails when the output does not parse", async () => {
    expect((await exactMatch("{}", "not json")).grade).toBe("fail");
  });
});

describe("json: schema", () => {
  const schema = {
    type: "object",
    required: ["answer", "confidence"],
    properties: { answer: { type: "string" }, confidence: { type: "number", minimum: 0, maximum: 1 } },
    additionalProperties: false,
  };

  it("passes when the parsed output validates", async () => {
    expect(await matchesSchema(schema, '```json\n{"answer": "yes", "confidence": 0.9}\n```')).toEqual({
      grade: "pass",
      score: 1,
      reason: "output matches the schema",
    });
  });

  it("fails with the first validation errors", async () => {
    const verdict = await matchesSchema(schema, '{"answer": 1, "confidence": 2, "extra": true}');
    expect(verdict).toMatchObject({ grade: "fail", score: 0 });
    expect(verdict.reason).toMatch(/^output does not match the schema: /);
    expect(verdict.reason).toContain("output/answer must be string");
    expect(verdict.reason).toContain("output/confidence must be <= 1");
    expect(verdict.reason).toContain("must NOT have additional properties");
  });

  it("lists at most five errors", async () => {
    const many = { type: "array", items: { type: "string" } };
    const verdict = await matchesSchema(many, "[1, 2, 3, 4, 5, 6, 7]");
    expect(verdict.reason.match(/must be string/g)).toHaveLength(5);
    expect(verdict.reason).toMatch(/\(and 2 more\)$/);
  });

  it("supports JSON Schema 2020-12 keywords and formats", async () => {
    const tuple = {
      type: "array",
      prefixItems: [{ type: "string", format: "email" }, { type: "integer" }],
      items: false,
    };
    expect((await matchesSchema(tuple, '["a@example.com", 3]')).grade).toBe("pass");
    expect((await matchesSchema(tuple, '["not an email", 3]')).grade).toBe("fail");
    expect((await matchesSchema(tuple, '["a@example.com", 3, 4]')).grade).toBe("fail");
  });

  it("is unknown when the schema is invalid", async () => {
    const verdict = await matchesSchema({ type: "no-such-type" }, "{}");
    expect(verdict).toMatchObject({ grade: "unknown", score: 0 });
    expect(verdict.reason).toMatch(/^the schema is invalid: /);
  });

  it("reuses the compiled schema for every row, including when two schemas share an $id", async () => {
    const first = { $id: "https://example.com/answer", type: "string" };
    const second = { $id: "https://example.com/answer", type: "number" };
    expect((await matchesSchema(first, '"a"')).grade).toBe("pass");
    expect((await matchesSchema(second, "1")).grade).toBe("pass");
    expect((await matchesSchema(first, "1")).grade).toBe("fail");
    expect((await matchesSchema({ ...first }, '"b"')).grade).toBe("pass");
  });

  it("fails when the output does not parse", async () => {
    expect((await matchesSchema(schema, "{")).grade).toBe("fail");
  });
});
