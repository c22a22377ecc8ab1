/**
 * What deleting an evaluator, a dataset or a prompt does to evaluation runs. Run states a worker would set are
 * written straight through `h.store.db` (no worker runs in the harness).
 */
import { expect, it } from "vitest";
import { describeEachStore, type Harness } from "../../testing/harness.ts";
import { expectError } from "../../testing/shared-cases.ts";
import { insertResult, newDataset, ok, setRun, setup, startRun } from "./evaluation-fixtures.ts";

const UNFINISHED = ["queued", "running", "cancelling"] as const;

async function countOf(
  h: Harness,
  table: "evaluationRuns" | "evaluationRunItems" | "evaluationResults",
  runId: string,
) {
  const column = table === "evaluationRuns" ? "id" : "runId";
  const { count } = await h.store.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .where(column, "=", runId)
    .executeTakeFirstOrThrow();
  return Number(count);
}

describeEachStore("deleting what evaluation runs use", (use) => {
  it("deleteEvaluator: 409 while one of its runs is queued, running or cancelling; then 204, runs and results kept", async () => {
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

  it("deleteDataset: 409 while a run over it is queued, running or cancelling; then 204, runs and results kept", async () => {
    const h = use();
    const s = await setup(h);
    // A run over a dataset no evaluator refers to: only the run keeps it.
    const other = await newDataset(h, 2);
    const run = await startRun(h, s.promptId, { datasetId: other.datasetId });
    const path = `/datasets/${other.datasetId}`;
    for (const status of UNFINISHED) {
      await setRun(h, run.runId, { status });
      const refused = await h.request("DELETE", path);
      await expectError(refused, 409, "CONFLICT");
      expect(refused.body.error.message).toContain(run.runId);
    }
    await setRun(h, run.runId, { status: "cancelled", finishedAt: h.now() });
    await insertResult(h, run.runId, other.rowIds[0] as string, { createdAt: h.now() });
    expect((await h.request("DELETE", path)).status).toBe(204);

    expect((await ok(h, "GET", `/prompts/${s.promptId}/evaluations/${run.runId}`)).datasetId).toBe(other.datasetId);
    const expanded = await ok(h, "GET", `/prompts/${s.promptId}/evaluations/${run.runId}/results?expand=row`);
    expect(expanded.results).toHaveLength(1);
    expect(expanded.results[0].row).toBeNull();
    expect(await countOf(h, "evaluationRunItems", run.runId)).toBe(2);
  });

  it("deletePrompt: removes its runs with their items and results, whatever their state", async () => {
    const h = use();
    const s = await setup(h);
    const queued = await startRun(h, s.promptId);
    const finished = await startRun(h, s.promptId);
    await setRun(h, finished.runId, { status: "completed", finishedAt: h.now() });
    await insertResult(h, finished.runId, s.rowIds[0] as string, { createdAt: h.now() });
    const survivor = await setup(h);
    const kept = await startRun(h, survivor.promptId);

    expect((await h.request("DELETE", `/prompts/${s.promptId}`)).status).toBe(204);
    for (const runId of [queued.runId, finished.runId]) {
      expect(await countOf(h, "evaluationRuns", runId)).toBe(0);
      expect(await countOf(h, "evaluationRunItems", runId)).toBe(0);
      expect(await countOf(h, "evaluationResults", runId)).toBe(0);
    }
    await expectError(
      await h.request("GET", `/prompts/${s.promptId}/evaluations/${queued.runId}`),
      404,
      "RESOURCE_NOT_FOUND",
    );
    expect(await countOf(h, "evaluationRunItems", kept.runId)).toBe(3);
    expect((await ok(h, "GET", `/prompts/${survivor.promptId}/evaluations/${kept.runId}`)).status).toBe("queued");
  });
});
