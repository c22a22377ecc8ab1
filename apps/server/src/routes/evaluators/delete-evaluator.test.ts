import { expect, it } from "vitest";
import { insertResult, ok, setRun, setup, startRun, UNFINISHED } from "../../testing/evaluation-fixtures.ts";
import { createEvaluator, fixture, RUBRIC } from "../../testing/evaluator-fixtures.ts";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";

describeEachStore("deleteEvaluator", (use) => {
  it("deletes an evaluator (204); it is then gone (404)", async () => {
    const h = use();
    const { promptId, datasetId } = await fixture(h);
    const { body: evaluator } = await createEvaluator(h, promptId, { datasetId, config: RUBRIC });
    const path = `/prompts/${promptId}/evaluators/${evaluator.id}`;
    const deleted = await h.request("DELETE", path);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBe("");
    await expectError(await h.request("GET", path), 404, "RESOURCE_NOT_FOUND");
    await expectError(await h.request("DELETE", path), 404, "RESOURCE_NOT_FOUND");
  });

  it("409 while one of its runs is queued, running or cancelling; then 204, runs and results kept", async () => {
    const h = use();
    const s = await setup(h);
    const run = await startRun(h, s.promptId);
    const path = `/prompts/${s.promptId}/evaluators/${s.evaluatorId}`;
    for (const status of UNFINISHED) {
      await setRun(h, run.runId, { status });
      await expectError(await h.request("DELETE", path), 409, "CONFLICT");
    }
    await setRun(h, run.runId, { status: "completed", completedRows: 1, passRuns: 1, finishedAt: h.now() });
    const result = await insertResult(h, run.runId, s.rowIds[0] as string, { createdAt: h.now() });
    expect((await h.request("DELETE", path)).status).toBe(204);
    await expectError(await h.request("GET", path), 404, "RESOURCE_NOT_FOUND");

    const kept = await ok(h, "GET", `/prompts/${s.promptId}/evaluations/${run.runId}`);
    expect(kept).toMatchObject({ evaluatorId: s.evaluatorId, status: "completed" });
    const listed = await ok(h, "GET", `/prompts/${s.promptId}/evaluations?evaluatorId=${s.evaluatorId}`);
    expect(listed.evaluations).toEqual([kept]);
    const results = await ok(h, "GET", `/prompts/${s.promptId}/evaluations/${run.runId}/results`);
    expect(results.results.map((r: { id: string }) => r.id)).toEqual([result.id]);
  });
});
