import type { schemas } from "@pharos/contract";
import { describe, expect, it } from "vitest";
import { grade } from "./grade.ts";
import { noJudge, row } from "./test-support.ts";

type Operator = schemas.TextMatcherEvaluatorConfig["operator"];

const match = (
  operator: Operator,
  value: string | string[],
  output: string | null,
  options: { caseSensitive?: boolean; variables?: Record<string, string> } = {},
) =>
  grade(
    { type: "text-matcher", group: "code", operator, value, caseSensitive: options.caseSensitive ?? true },
    row({ output, variables: options.variables ?? {} }),
    noJudge,
  );

describe("text matcher", () => {
  it("equals: the whole output", async () => {
    expect(await match("equals", "Yes", "Yes")).toEqual({ grade: "pass", score: 1, reason: 'output equals "Yes"' });
    expect(await match("equals", "Yes", "Yes!")).toEqual({
      grade: "fail",
      score: 0,
      reason: 'output does not equal "Yes"',
    });
  });

  it("starts-with and ends-with", async () => {
    expect((await match("starts-with", "Dear", "Dear Ann")).grade).toBe("pass");
    expect(await match("starts-with", "Dear", "Hi Ann")).toMatchObject({
      grade: "fail",
      reason: 'output does not start with "Dear"',
    });
    expect((await match("ends-with", "Bye.", "Thanks. Bye.")).grade).toBe("pass");
    expect(await match("ends-with", "Bye.", "Bye. Thanks.")).toMatchObject({
      grade: "fail",
      reason: 'output does not end with "Bye."',
    });
  });

  it("regex: matches anywhere unless anchored", async () => {
    expect(await match("regex", "\\d{3}", "order 12345")).toEqual({
      grade: "pass",
      score: 1,
      reason: 'output matches /\\d{3}/ at "123"',
    });
    expect(await match("regex", "^\\d{3}$", "order 12345")).toEqual({
      grade: "fail",
      score: 0,
      reason: "output does not match /^\\d{3}$/",
    });
  });

  it("contains-any: at least one of the strings", async () => {
    expect(await match("contains-any", ["refund", "return"], "We will return it")).toMatchObject({
      grade: "pass",
      reason: 'contains: "return"',
    });
    expect(await match("contains-any", ["a1", "b2"], "nothing")).toEqual({
      grade: "fail",
      score: 0,
      reason: 'contains none of: "a1", "b2"',
    });
  });

  it("contains-all: every one of the strings", async () => {
    expect(await match("contains-all", ["x", "y"], "x and y")).toMatchObject({
      grade: "pass",
      reason: 'contains all of: "x", "y"',
    });
    expect(await match("contains-all", ["x", "y", "z"], "x alone")).toMatchObject({
      grade: "fail",
      reason: 'does not contain: "y", "z"',
    });
  });

  it("not-contains-any: none of the strings", async () => {
    expect(await match("not-contains-any", ["sorry", "cannot"], "Sure!")).toMatchObject({
      grade: "pass",
      reason: 'contains none of: "sorry", "cannot"',
    });
    expect(await match("not-contains-any", ["sorry", "cannot"], "Sorry, I cannot")).toMatchObject({
      grade: "fail",
      reason: 'contains: "cannot"',
    });
  });

  it("is case-sensitive by default and compares letters case-insensitively when asked", async () => {
    expect((await match("equals", "yes", "YES")).grade).toBe("fail");
    expect(await match("equals", "yes", "YES", { caseSensitive: false })).toMatchObject({
      grade: "pass",
      reason: 'output equals "yes" (ignoring case)',
    });
    expect((await match("starts-with", "ÉTÉ", "été chaud", { caseSensitive: false })).grade).toBe("pass");
    expect((await match("ends-with", "END", "the end", { caseSensitive: false })).grade).toBe("pass");
    expect((await match("contains-all", ["ReFuNd", "X"], "refund x", { caseSensitive: false })).grade).toBe("pass");
    expect((await match("not-contains-any", ["SORRY"], "sorry", { caseSensitive: false })).grade).toBe("fail");
    expect((await match("regex", "^hello", "HELLO there")).grade).toBe("fail");
    expect(await match("regex", "^hello", "HELLO there", { caseSensitive: false })).toMatchObject({
      grade: "pass",
      reason: 'output matches /^hello/i at "HELLO"',
    });
  });

  it("fills placeholders from the row, escaping them in a regex", async () => {
    const variables = { name: "Ann", price: "$1.50" };
    expect((await match("starts-with", "Dear {{name}}", "Dear Ann,", { variables })).grade).toBe("pass");
    expect((await match("contains-any", ["{{name}}"], "Hi Bob", { variables })).grade).toBe("fail");
    expect((await match("regex", "costs {{price}}$", "it costs $1.50", { variables })).grade).toBe("pass");
    expect((await match("regex", "costs {{price}}$", "it costs $1x50", { variables })).grade).toBe("fail");
    expect((await match("equals", "{{unknown}}", "{{unknown}}", { variables })).grade).toBe("pass");
  });

  it("is unknown when a filled-in regex is invalid", async () => {
    const verdict = await match("regex", "{{count}}{2}", "x", { variables: { count: "" } });
    expect(verdict.grade).toBe("unknown");
    expect(verdict.reason).toMatch(/^the regular expression is invalid once filled in: /);
  });

  it("is unknown when the row produced no output", async () => {
    for (const operator of ["equals", "regex", "contains-any"] as const) {
      expect(await match(operator, operator === "contains-any" ? ["a"] : "a", null)).toEqual({
        grade: "unknown",
        score: 0,
        reason: "the row produced no output",
      });
    }
  });

  it("lists at most ten strings in a reason", async () => {
    const needles = Array.from({ length: 12 }, (_, index) => `w${index}`);
    const { reason } = await match("contains-any", needles, "none");
    expect(reason).toBe(
      `contains none of: ${needles
        .slice(0, 10)
        .map((n) => `"${n}"`)
        .join(", ")} and 2 more`,
    );
  });
});
