import { expect, it } from "vitest";
import { addRows, createQaDataset, insertEvaluator } from "../../testing/dataset-fixtures.ts";
import {
  countOf,
  insertResult,
  newDataset,
  ok,
  setRun,
  setup,
  startRun,
  UNFINISHED,
} from "../../testing/evaluation-fixtures.ts";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";

describeEachStore("deleteDataset", (use) => {
  it("deletes a dataset with its columns and rows (204)", async () => {
    const h = use();
    const dataset = await createQaDataset(h);
    await addRows(h, dataset.id, [{ question: "a" }, { question: "b" }]);
    const deleted = await h.request("DELETE", `/datasets/${dataset.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBe("");
    await expectError(await h.request("GET", `/datasets/${dataset.id}`), 404, "RESOURCE_NOT_FOUND");
    await expectError(await h.request("GET", `/datasets/${dataset.id}/rows`), 404, "RESOURCE_NOT_FOUND");
    await expectError(await h.request("DELETE", `/datasets/${dataset.id}`), 404, "RESOURCE_NOT_FOUND");
    const leftRows = await h.store.db
      .selectFrom("datasetRows")
      .select("id")
      .where("datasetId", "=", dataset.id)
      .execute();
    const leftColumns = await h.store.db
      .selectFrom("datasetColumns")
      .select("id")
      .where("datasetId", "=", dataset.id)
      .execute();
    expect([leftRows, leftColumns]).toEqual([[], []]);
  });

  it("keeps a dataset that an active or archived evaluator refers to (409)", async () => {
    const h = use();
    for (const status of ["active", "archived"] as const) {
      const dataset = await createQaDataset(h);
      await addRows(h, dataset.id, [{ question: "a" }]);
      const evaluatorId = await insertEvaluator(h, dataset.id, status);
      await expectError(await h.request("DELETE", `/datasets/${dataset.id}`), 409, "CONFLICT");
      const kept = await h.request("GET", `/datasets/${dataset.id}`);
      expect(kept.body).toMatchObject({ rowCount: 1, columns: dataset.columns });
      await h.store.db.deleteFrom("evaluators").where("id", "=", evaluatorId).execute();
      expect((await h.request("DELETE", `/datasets/${dataset.id}`)).status).toBe(204);
    }
  });

  it("409 while a run over it is queued, running or cancelling; then 204, runs and results kept", async () => {
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
});
