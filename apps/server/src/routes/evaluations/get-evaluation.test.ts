import { expect, it } from "vitest";
import { ok, type Setup, setRun, setup, startRun } from "../../testing/evaluation-fixtures.ts";
import { describeEachStore } from "../../testing/harness.ts";

describeEachStore("getEvaluation", (use) => {
  const path = (s: Setup, runId: string) => `/prompts/${s.promptId}/evaluations/${runId}`;

  it("200: progress (percent to two decimals), metrics, timeline and error as a worker left them", async () => {
    const h = use();
    const s = await setup(h);
    const run = await startRun(h, s.promptId);
    const cases: [number, number, number, number][] = [
      [3, 1, 0, 33.33],
      [3, 1, 1, 66.67],
      [7, 0, 1, 14.29],
      [3, 2, 1, 100],
      [200, 1, 0, 0.5],
    ];
    for (const [totalRows, completedRows, failedRows, percent] of cases) {
      await setRun(h, run.runId, { totalRows, completedRows, failedRows });
      const read = await ok(h, "GET", path(s, run.runId));
      expect(read.progress).toEqual({ totalRows, completedRows, failedRows, percent });
    }
    const worked = {
      status: "failed" as const,
      passRuns: 1,
      failRuns: 1,
      unknownRuns: 1,
      totalCost: 0.0123,
      totalLatency: 1500.5,
      totalTokenCount: 321,
      startedAt: run.timeline.submittedAt + 10,
      finishedAt: run.timeline.submittedAt + 20,
      error: 'The dataset has no column for the prompt variable "orderId".',
    };
    await setRun(h, run.runId, worked);
    expect(await ok(h, "GET", path(s, run.runId))).toMatchObject({
      status: "failed",
      metrics: {
        passRuns: 1,
        failRuns: 1,
        unknownRuns: 1,
        totalCost: 0.0123,
        totalLatency: 1500.5,
        totalTokenCount: 321,
      },
      timeline: { submittedAt: run.timeline.submittedAt, startedAt: worked.startedAt, finishedAt: worked.finishedAt },
      error: worked.error,
    });
  });
});
