import { describe, expect, it } from "vitest";
import { deltaTone, formatDelta, formatRate, isFinished, parseEvaluationsSearch } from "./view.ts";

describe("the evaluations screen's URL", () => {
  it("reads a run, its filter, baseline and change", () => {
    expect(
      parseEvaluationsSearch({ run: "evalrun_1", grade: "fail", baseline: "evalrun_0", change: "regressed", x: 1 }),
    ).toEqual({ run: "evalrun_1", grade: "fail", baseline: "evalrun_0", change: "regressed" });
  });

  it("drops malformed values and the run's options without a run", () => {
    expect(parseEvaluationsSearch({ grade: "fail", baseline: "evalrun_0", evaluator: "new" })).toEqual({
      evaluator: "new",
    });
    expect(parseEvaluationsSearch({ run: "a b", grade: "great" })).toEqual({});
    expect(parseEvaluationsSearch({ run: "evalrun_1", grade: "great", change: "worse" })).toEqual({ run: "evalrun_1" });
  });
});

describe("figures", () => {
  it("reads deltas with their unit and sign", () => {
    expect(formatDelta("rate", -0.5)).toBe("−50.0 pts");
    expect(formatDelta("rate", null)).toBe("–");
    expect(formatDelta("cost", 0.0001)).toBe("+$0.000100");
    expect(formatDelta("latency", -1500)).toBe("−1.50 s");
    expect(formatDelta("latency", 20)).toBe("+20 ms");
    expect(formatDelta("tokens", 1200)).toBe("+1,200");
    expect(formatDelta("tokens", 0)).toBe("±0");
  });

  it("colours a lower pass rate and a higher cost as worse", () => {
    expect(deltaTone("rate", -0.1)).toBe("worse");
    expect(deltaTone("rate", 0.1)).toBe("better");
    expect(deltaTone("cost", 0.1)).toBe("worse");
    expect(deltaTone("latency", -3)).toBe("better");
    expect(deltaTone("tokens", 0)).toBe("same");
  });

  it("reads rates and knows which runs are finished", () => {
    expect(formatRate(0.875)).toBe("87.5 %");
    expect(formatRate(null)).toBe("–");
    expect(isFinished("cancelling")).toBe(false);
    expect(isFinished("cancelled")).toBe(true);
    expect(isFinished(undefined)).toBe(false);
  });
});
