import { expect, it } from "vitest";
import { ok, type Setup, setRun, setup, startRun } from "../../testing/evaluation-fixtures.ts";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore, type Harness } from "../../testing/harness.ts";

/** Puts one item of the run in the hands of a (simulated) worker whose lease ends at `leaseExpiresAt`. */
async function claimItem(h: Harness, runId: string, rowId: string, leaseExpiresAt: number) {
  await h.store.db
    .updateTable("evaluationRunItems")
    .set({ state: "claimed", leaseOwner: "worker-test", leaseExpiresAt })
    .where("runId", "=", runId)
    .where("rowId", "=", rowId)
    .execute();
}

describeEachStore("cancelEvaluation", (use) => {
  const cancel = (h: Harness, s: Setup, runId: string, key?: string) =>
    h.request("POST", `/prompts/${s.promptId}/evaluations/${runId}/cancel`, { key });

  it("200: a queued run is cancelled at once (finishedAt set, never started); cancelling it again is 409", async () => {
    const h = use();
    const s = await setup(h);
    const run = await startRun(h, s.promptId);
    const cancelled = await cancel(h, s, run.runId);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: "cancelled", timeline: { startedAt: null } });
    expect(cancelled.body.timeline.finishedAt).toBeGreaterThan(run.timeline.submittedAt);
    expect(await ok(h, "GET", `/prompts/${s.promptId}/evaluations/${run.runId}`)).toEqual(cancelled.body);
    await expectError(await cancel(h, s, run.runId), 409, "CONFLICT");
  });

  it("200: a running run with no row in flight (none claimed, or a lease expired) is cancelled at once", async () => {
    const h = use();
    const s = await setup(h);
    for (const lease of [null, h.now() - 1]) {
      const run = await startRun(h, s.promptId);
      // Standing in for a worker: the run started, and maybe a worker died holding a row.
      await setRun(h, run.runId, { status: "running", startedAt: h.now() });
      if (lease !== null) await claimItem(h, run.runId, s.rowIds[0] as string, lease);
      const reply = await cancel(h, s, run.runId);
      expect(reply.status).toBe(200);
      expect(reply.body.status).toBe("cancelled");
      expect(reply.body.timeline.finishedAt).toEqual(expect.any(Number));
    }
  });

  it("200: a running run with a row in flight becomes cancelling; cancelling it again returns it unchanged", async () => {
    const h = use();
    const s = await setup(h);
    const run = await startRun(h, s.promptId);
    // Standing in for a worker: the run is running and a worker holds a live lease on one of its rows.
    await setRun(h, run.runId, { status: "running", startedAt: h.now(), completedRows: 1, passRuns: 1 });
    await claimItem(h, run.runId, s.rowIds[1] as string, h.now() + 60_000);
    const cancelling = await cancel(h, s, run.runId);
    expect(cancelling.status).toBe(200);
    expect(cancelling.body).toMatchObject({
      status: "cancelling",
      progress: { completedRows: 1, percent: 33.33 },
      timeline: { finishedAt: null },
    });
    const again = await cancel(h, s, run.runId);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(cancelling.body);
  });

  it("409 CONFLICT for a completed, failed or cancelled run", async () => {
    const h = use();
    const s = await setup(h);
    for (const status of ["completed", "failed", "cancelled"] as const) {
      const run = await startRun(h, s.promptId);
      await setRun(h, run.runId, { status, finishedAt: h.now() });
      const reply = await cancel(h, s, run.runId);
      await expectError(reply, 409, "CONFLICT");
      expect((await ok(h, "GET", `/prompts/${s.promptId}/evaluations/${run.runId}`)).status).toBe(status);
    }
  });
});
