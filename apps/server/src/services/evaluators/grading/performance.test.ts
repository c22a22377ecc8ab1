import { describe, expect, it } from "vitest";
import { grade } from "./grade.ts";
import { noJudge, row } from "./test-support.ts";

type Operator = "less-than" | "greater-than" | "equals";

const byCost = (operator: Operator, threshold: number, cost: number | null) =>
  grade({ type: "cost", group: "performance", operator, threshold }, row({ output: "x", cost }), noJudge);
const byLatency = (operator: Operator, threshold: number, unit: "ms" | "s", latencyMs: number | null) =>
  grade({ type: "latency", group: "performance", operator, threshold, unit }, row({ output: "x", latencyMs }), noJudge);
const byLength = (
  operator: Operator,
  threshold: number,
  unit: "words" | "characters" | "tokens",
  output: string | null,
  outputTokens: number | null = null,
) =>
  grade(
    { type: "response-length", group: "performance", operator, threshold, unit },
    row({ output, outputTokens }),
    noJudge,
  );

describe("cost", () => {
  it("compares the cost in USD with the threshold", async () => {
    expect(await byCost("less-than", 0.002, 0.0012)).toEqual({
      grade: "pass",
      score: 1,
      reason: "cost 0.0012 USD is less than 0.002",
    });
    expect(await byCost("less-than", 0.002, 0.002)).toEqual({
      grade: "fail",
      score: 0,
      reason: "cost 0.002 USD is not less than 0.002",
    });
    expect((await byCost("greater-than", 0.001, 0.0012)).reason).toBe("cost 0.0012 USD is greater than 0.001");
    expect((await byCost("greater-than", 0.01, 0.0012)).reason).toBe("cost 0.0012 USD is not greater than 0.01");
    expect(await byCost("equals", 0, 0)).toMatchObject({ grade: "pass", reason: "cost 0 USD equals 0" });
    expect(await byCost("equals", 0.1, 0.2)).toMatchObject({
      grade: "fail",
      reason: "cost 0.2 USD does not equal 0.1",
    });
  });

  it("shows costs without float noise", async () => {
    expect((await byCost("less-than", 1, 0.1 + 0.2)).reason).toBe("cost 0.3 USD is less than 1");
  });

  it("is unknown when the cost is unknown", async () => {
    expect(await byCost("less-than", 1, null)).toEqual({
      grade: "unknown",
      score: 0,
      reason: "the cost is unknown: the model has no price or the call failed",
    });
  });
});

describe("latency", () => {
  it("compares milliseconds", async () => {
    expect(await byLatency("less-than", 1000, "ms", 812)).toEqual({
      grade: "pass",
      score: 1,
      reason: "latency 812 ms is less than 1000 ms",
    });
    expect((await byLatency("greater-than", 1000, "ms", 812)).grade).toBe("fail");
    expect((await byLatency("equals", 812, "ms", 812)).grade).toBe("pass");
  });

  it("converts to seconds, exactly", async () => {
    expect(await byLatency("less-than", 2, "s", 812)).toEqual({
      grade: "pass",
      score: 1,
      reason: "latency 0.812 s is less than 2 s",
    });
    expect((await byLatency("less-than", 2, "s", 2500)).reason).toBe("latency 2.5 s is not less than 2 s");
    expect((await byLatency("greater-than", 2, "s", 2001)).grade).toBe("pass");
    expect(await byLatency("equals", 1.1, "s", 1100)).toMatchObject({
      grade: "pass",
      reason: "latency 1.1 s equals 1.1 s",
    });
    expect((await byLatency("equals", 1.1, "s", 1101)).grade).toBe("fail");
  });

  it("is unknown when the call failed", async () => {
    expect(await byLatency("less-than", 2, "s", null)).toEqual({
      grade: "unknown",
      score: 0,
      reason: "the latency is unknown: the model call failed",
    });
  });
});

describe("response length", () => {
  it("counts words as runs of non-whitespace", async () => {
    expect(await byLength("equals", 4, "words", "  Hello,\tworld!\n\nfine\u00a0day ")).toEqual({
      grade: "pass",
      score: 1,
      reason: "response length 4 words equals 4",
    });
    expect((await byLength("equals", 0, "words", "   ")).grade).toBe("pass");
    expect(await byLength("less-than", 3, "words", "one two three")).toMatchObject({
      grade: "fail",
      reason: "response length 3 words is not less than 3",
    });
  });

  it("counts characters as Unicode code points", async () => {
    expect((await byLength("equals", 3, "characters", "a😀é")).grade).toBe("pass");
    expect((await byLength("greater-than", 2, "characters", "😀😀")).grade).toBe("fail");
  });

  it("takes tokens from the provider's count", async () => {
    expect(await byLength("less-than", 100, "tokens", "whatever", 42)).toEqual({
      grade: "pass",
      score: 1,
      reason: "response length 42 tokens is less than 100",
    });
    expect((await byLength("greater-than", 100, "tokens", "whatever", 42)).grade).toBe("fail");
  });

  it("is unknown without an output, or without a token count for tokens", async () => {
    for (const unit of ["words", "characters", "tokens"] as const) {
      expect(await byLength("less-than", 10, unit, null, 5)).toEqual({
        grade: "unknown",
        score: 0,
        reason: "the row produced no output",
      });
    }
    expect(await byLength("less-than", 10, "tokens", "text", null)).toEqual({
      grade: "unknown",
      score: 0,
      reason: "the provider reported no token count",
    });
  });
});
