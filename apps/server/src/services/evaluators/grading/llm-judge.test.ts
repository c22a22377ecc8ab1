import { describe, expect, it } from "vitest";
import type { JudgeInput, Verdict } from "../../../llm/judge.ts";
import { grade } from "./grade.ts";
import { row } from "./test-support.ts";

const rubric = (value: string) => ({
  type: "llm-as-a-judge" as const,
  group: "ai-powered" as const,
  value,
  judgeModel: null,
});

/** A judge that records what it was asked and answers `answer`. */
function fakeJudge(answer: unknown) {
  const inputs: JudgeInput[] = [];
  return {
    inputs,
    judge: async (input: JudgeInput) => {
      inputs.push(input);
      return answer as Verdict;
    },
  };
}

describe("llm as a judge", () => {
  it("sends the rubric with its placeholders filled, the variables and the output, and returns the verdict", async () => {
    const fake = fakeJudge({ grade: "pass", score: 0.8, reason: "polite" });
    const variables = { expected: "a refund", name: "Ann" };
    const verdict = await grade(
      rubric("Pass if it offers {{expected}} to {{name}}; ignore {{other}}."),
      row({ output: "Dear Ann, here is a refund.", variables }),
      fake,
    );
    expect(verdict).toEqual({ grade: "pass", score: 0.8, reason: "polite" });
    expect(fake.inputs).toEqual([
      {
        rubric: "Pass if it offers a refund to Ann; ignore {{other}}.",
        variables,
        output: "Dear Ann, here is a refund.",
      },
    ]);
  });

  it("keeps a fail and an unknown from the judge, an unknown always scoring 0", async () => {
    expect(
      await grade(rubric("r"), row({ output: "x" }), fakeJudge({ grade: "fail", score: 0.1, reason: "rude" })),
    ).toEqual({ grade: "fail", score: 0.1, reason: "rude" });
    expect(
      await grade(
        rubric("r"),
        row({ output: "x" }),
        fakeJudge({ grade: "unknown", score: 0.5, reason: "Judge: timeout" }),
      ),
    ).toEqual({ grade: "unknown", score: 0, reason: "Judge: timeout" });
  });

  it("is unknown without calling the judge when the row produced no output", async () => {
    const fake = fakeJudge({ grade: "pass", score: 1, reason: "" });
    expect(await grade(rubric("r"), row({ output: null }), fake)).toEqual({
      grade: "unknown",
      score: 0,
      reason: "the row produced no output",
    });
    expect(fake.inputs).toEqual([]);
  });

  it("is unknown when the verdict is unusable", async () => {
    const unusable: [unknown, string][] = [
      [{ grade: "pass", score: 1.5, reason: "" }, "score must be a number from 0 to 1"],
      [{ grade: "pass", score: Number.NaN, reason: "" }, "score must be a number from 0 to 1"],
      [{ grade: "maybe", score: 0.5, reason: "" }, 'grade must be "pass", "fail" or "unknown"'],
      [{ grade: "pass", score: 1 }, "reason must be a string"],
      [null, "not an object"],
    ];
    for (const [answer, problem] of unusable) {
      expect(await grade(rubric("r"), row({ output: "x" }), fakeJudge(answer))).toEqual({
        grade: "unknown",
        score: 0,
        reason: `the judge gave no usable verdict: ${problem}`,
      });
    }
  });

  it("is unknown when the judge throws", async () => {
    const judge = () => Promise.reject(new Error("connection reset"));
    expect(await grade(rubric("r"), row({ output: "x" }), { judge })).toEqual({
      grade: "unknown",
      score: 0,
      reason: "the judge failed: connection reset",
    });
  });

  it("cuts a reason longer than a result can store", async () => {
    const verdict = await grade(
      rubric("r"),
      row({ output: "x" }),
      fakeJudge({ grade: "pass", score: 1, reason: "r".repeat(30000) }),
    );
    expect(verdict.reason).toHaveLength(20000);
    expect(verdict.reason.endsWith("…")).toBe(true);
  });
});
