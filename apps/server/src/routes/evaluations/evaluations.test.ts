import { expect, it } from "vitest";
import { describeEachStore, type Harness } from "../../testing/harness.ts";
import { expectError, itHidesOtherWorkspaces, itRejectsMissingAndInvalidKeys } from "../../testing/shared-cases.ts";
import { newDataset, newEvaluator, ok, type Setup, setRun, setup, startRun } from "./evaluation-fixtures.ts";

const unknown = (prefix: string) => `${prefix}_${"0".repeat(26)}`;
const runIds = (reply: { body: { evaluations: { runId: string }[] } }) =>
  reply.body.evaluations.map((run) => run.runId);

/** Puts one item of the run in the hands of a (simulated) worker whose lease ends at `leaseExpiresAt`. */
async function claimItem(h: Harness, runId: string, rowId: string, leaseExpiresAt: number) {
  await h.store.db
    .updateTable("evaluationRunItems")
    .set({ state: "claimed", leaseOwner: "worker-test", leaseExpiresAt })
    .where("runId", "=", runId)
    .where("rowId", "=", rowId)
    .execute();
}

describeEachStore("listEvaluations", (use) => {
  it("200: the prompt's runs newest first, filtered by status, evaluator, dataset and submission time", async () => {
    const h = use();
    const s = await setup(h);
    const other = await newDataset(h, 1);
    const second = await newEvaluator(h, s.promptId, s.datasetId);
    const a = await startRun(h, s.promptId, { evaluatorId: s.evaluatorId });
    const b = await startRun(h, s.promptId, { evaluatorId: second });
    const c = await startRun(h, s.promptId, { evaluatorId: s.evaluatorId, datasetId: other.datasetId });
    await startRun(h, (await setup(h)).promptId);
    await setRun(h, b.runId, { status: "completed" });
    const list = (query = "") => h.request("GET", `/prompts/${s.promptId}/evaluations${query}`);

    const all = await list();
    expect(all.status).toBe(200);
    expect(runIds(all)).toEqual([c.runId, b.runId, a.runId]);
    expect(all.body.evaluations[0]).toEqual(c);
    expect(all.body.pagination).toEqual({ limit: 50, returned: 3, hasMore: false, nextCursor: null });
    expect(runIds(await list("?sort=createdAt:asc"))).toEqual([a.runId, b.runId, c.runId]);
    expect(runIds(await list("?status=completed"))).toEqual([b.runId]);
    expect(runIds(await list("?status=queued"))).toEqual([c.runId, a.runId]);
    expect(runIds(await list(`?evaluatorId=${s.evaluatorId}`))).toEqual([c.runId, a.runId]);
    expect(runIds(await list(`?datasetId=${s.datasetId}`))).toEqual([b.runId, a.runId]);
    expect(runIds(await list(`?evaluatorId=${s.evaluatorId}&datasetId=${s.datasetId}`))).toEqual([a.runId]);
    const submitted = (run: { timeline: { submittedAt: number } }) => run.timeline.submittedAt;
    expect(runIds(await list(`?createdAfter=${submitted(b)}`))).toEqual([c.runId, b.runId]);
    expect(runIds(await list(`?createdBefore=${submitted(b)}`))).toEqual([b.runId, a.runId]);
    expect(runIds(await list(`?createdAfter=${submitted(b)}&createdBefore=${submitted(b)}`))).toEqual([b.runId]);
  });

  it("200: pages with a cursor bound to its query (400 INVALID_CURSOR with another one)", async () => {
    const h = use();
    const s = await setup(h);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await startRun(h, s.promptId)).runId);
    const path = `/prompts/${s.promptId}/evaluations`;
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await h.request(
        "GET",
        `${path}?limit=2&sort=createdAt:asc${cursor ? `&cursor=${cursor}` : ""}`,
      );
      expect(page.status).toBe(200);
      seen.push(...runIds(page));
      cursor = page.body.pagination.nextCursor;
    } while (cursor);
    expect(seen).toEqual(ids);
    const first = await h.request("GET", `${path}?limit=2`);
    expect(first.body.pagination).toMatchObject({ limit: 2, returned: 2, hasMore: true });
    const cursorOfFirst = first.body.pagination.nextCursor;
    await expectError(
      await h.request("GET", `${path}?limit=2&status=queued&cursor=${cursorOfFirst}`),
      400,
      "INVALID_CURSOR",
    );
    await expectError(await h.request("GET", `${path}?cursor=${cursorOfFirst}x`), 400, "INVALID_CURSOR");
  });

  it("400 for an unknown status, a malformed id filter and a page size over 200; 404 for an unknown prompt", async () => {
    const h = use();
    const s = await setup(h);
    for (const query of ["status=done", "evaluatorId=evaluator_1", "limit=201", "sort=score:asc"]) {
      await expectError(await h.request("GET", `/prompts/${s.promptId}/evaluations?${query}`), 400, "VALIDATION_ERROR");
    }
    await expectError(await h.request("GET", `/prompts/${unknown("prompt")}/evaluations`), 404, "RESOURCE_NOT_FOUND");
  });

  it("200 for read-only keys; 403 for ingest-only keys and for a key restricted to another project", async () => {
    const h = use();
    const s = await setup(h);
    const path = `/prompts/${s.promptId}/evaluations`;
    expect((await h.request("GET", path, { key: await h.newKey("read-only") })).status).toBe(200);
    await expectError(await h.request("GET", path, { key: await h.newKey("ingest-only") }), 403, "FORBIDDEN");
    const elsewhere = await ok(h, "POST", "/projects", { title: "Elsewhere" });
    await expectError(await h.request("GET", path, { key: await h.newKey("full", [elsewhere.id]) }), 403, "FORBIDDEN");
  });

  itRejectsMissingAndInvalidKeys(use, { method: "GET", path: () => `/prompts/${unknown("prompt")}/evaluations` });
  itHidesOtherWorkspaces(use, {
    method: "GET",
    path: async (h) => `/prompts/${(await setup(h)).promptId}/evaluations`,
  });
});

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

  it("404 for an unknown run and for a run of another prompt; 400 for a malformed id", async () => {
    const h = use();
    const s = await setup(h);
    const other = await setup(h);
    const theirs = await startRun(h, other.promptId);
    await expectError(await h.request("GET", path(s, unknown("evalrun"))), 404, "RESOURCE_NOT_FOUND");
    await expectError(await h.request("GET", path(s, theirs.runId)), 404, "RESOURCE_NOT_FOUND");
    await expectError(await h.request("GET", path(s, "evalrun_1")), 400, "VALIDATION_ERROR");
  });

  it("200 for read-only keys; 403 for a key restricted to another project", async () => {
    const h = use();
    const s = await setup(h);
    const run = await startRun(h, s.promptId);
    expect((await h.request("GET", path(s, run.runId), { key: await h.newKey("read-only") })).status).toBe(200);
    const elsewhere = await ok(h, "POST", "/projects", { title: "Elsewhere" });
    const restricted = await h.newKey("full", [elsewhere.id]);
    await expectError(await h.request("GET", path(s, run.runId), { key: restricted }), 403, "FORBIDDEN");
  });

  itRejectsMissingAndInvalidKeys(use, {
    method: "GET",
    path: () => `/prompts/${unknown("prompt")}/evaluations/${unknown("evalrun")}`,
  });
  itHidesOtherWorkspaces(use, {
    method: "GET",
    path: async (h) => {
      const s = await setup(h);
      return path(s, (await startRun(h, s.promptId)).runId);
    },
  });
});

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

  it("404 for an unknown run and for a run of another prompt; 403 for read-only and restricted keys", async () => {
    const h = use();
    const s = await setup(h);
    const other = await setup(h);
    const theirs = await startRun(h, other.promptId);
    await expectError(await cancel(h, s, unknown("evalrun")), 404, "RESOURCE_NOT_FOUND");
    await expectError(await cancel(h, s, theirs.runId), 404, "RESOURCE_NOT_FOUND");
    const run = await startRun(h, s.promptId);
    const elsewhere = await ok(h, "POST", "/projects", { title: "Elsewhere" });
    for (const key of [await h.newKey("read-only"), await h.newKey("full", [elsewhere.id])]) {
      await expectError(await cancel(h, s, run.runId, key), 403, "FORBIDDEN");
    }
    expect((await ok(h, "GET", `/prompts/${s.promptId}/evaluations/${run.runId}`)).status).toBe("queued");
  });

  itRejectsMissingAndInvalidKeys(use, {
    method: "POST",
    path: () => `/prompts/${unknown("prompt")}/evaluations/${unknown("evalrun")}/cancel`,
  });
  itHidesOtherWorkspaces(use, {
    method: "POST",
    path: async (h) => {
      const s = await setup(h);
      return `/prompts/${s.promptId}/evaluations/${(await startRun(h, s.promptId)).runId}/cancel`;
    },
  });
});
