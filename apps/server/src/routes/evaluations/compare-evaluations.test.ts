/**
 * compareEvaluations. Results are written straight into the tables, standing in for a worker (none runs in the
 * harness), so that every kind of change is known in advance.
 */
import { expect, it } from "vitest";
import type { Database } from "../../store/schema.ts";
import {
  insertResult,
  newDataset,
  newEvaluator,
  ok,
  type Setup,
  setRun,
  setup,
  startRun,
} from "../../testing/evaluation-fixtures.ts";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore, type Harness } from "../../testing/harness.ts";

type Result = Partial<Database["evaluationResults"]>;

const PASS: Result = { grade: "pass", score: 1, output: "A" };
const FAIL: Result = { grade: "fail", score: 0, output: "B" };
const ERRORED: Result = { grade: "unknown", score: 0, output: null, error: "Provider error: 429.", reason: "" };

/** A completed run of the prompt with the given results (`undefined`: no result for that row) and metrics. */
async function completedRun(h: Harness, s: Setup, results: (Result | undefined)[], body = {}) {
  const run = await startRun(h, s.promptId, body);
  const counts = { passRuns: 0, failRuns: 0, unknownRuns: 0, totalCost: 0, totalLatency: 0, totalTokenCount: 0 };
  for (const [i, result] of results.entries()) {
    if (!result) continue;
    const row = await insertResult(h, run.runId, s.rowIds[i] as string, { ...result, createdAt: h.now() });
    counts[`${row.grade}Runs` as "passRuns"] += 1;
    counts.totalCost += row.cost;
    counts.totalLatency += row.latency;
    counts.totalTokenCount += row.tokenCount;
  }
  await setRun(h, run.runId, { status: "completed", completedRows: results.length, ...counts, finishedAt: h.now() });
  return run.runId as string;
}

/**
 * Seven rows: r0 regressed, r1 improved, r2 unchanged, r3 changed (same grade, other output), r4 regressed
 * (an error), r5 added, r6 removed.
 */
async function twoRuns(h: Harness) {
  const s = await setup(h, { rows: 7 });
  const baselineId = await completedRun(h, s, [
    PASS,
    FAIL,
    PASS,
    FAIL,
    { ...PASS, cost: 0.5, latency: 1000, tokenCount: 100 },
    undefined,
    PASS,
  ]);
  const candidateId = await completedRun(h, s, [FAIL, PASS, PASS, { ...FAIL, output: "C" }, ERRORED, PASS, undefined]);
  return { s, baselineId, candidateId };
}

const comparePath = (s: Setup, candidateId: string, baselineId: string, query = "") =>
  `/prompts/${s.promptId}/evaluations/${candidateId}/comparison?baselineId=${baselineId}${query}`;

/** Every page of the comparison, `limit` rows at a time. */
async function readAll(h: Harness, path: string, limit: number) {
  const rows: { rowId: string; change: string }[] = [];
  let cursor: string | null = null;
  do {
    const reply: any = await h.request("GET", `${path}&limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    rows.push(...reply.body.rows.map(({ rowId, change }: { rowId: string; change: string }) => ({ rowId, change })));
    cursor = reply.body.pagination.nextCursor;
  } while (cursor);
  return rows;
}

describeEachStore("compareEvaluations", (use) => {
  it("200: both results side by side per row, each change classified, totals with deltas", async () => {
    const h = use();
    const { s, baselineId, candidateId } = await twoRuns(h);
    const reply = await h.request("GET", comparePath(s, candidateId, baselineId));
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const body = reply.body;
    expect(body).toMatchObject({ baselineId, candidateId, datasetId: s.datasetId });
    expect(body.rows.map((row: { change: string }) => row.change)).toEqual([
      "regressed",
      "improved",
      "unchanged",
      "changed",
      "regressed",
      "added",
      "removed",
    ]);
    expect(body.rows.map((row: { rowId: string }) => row.rowId)).toEqual(s.rowIds);
    const baselineResults = await ok(h, "GET", `/prompts/${s.promptId}/evaluations/${baselineId}/results`);
    const candidateResults = await ok(h, "GET", `/prompts/${s.promptId}/evaluations/${candidateId}/results`);
    const byRow = (results: { rowId: string }[], rowId: string) => results.find((r) => r.rowId === rowId) ?? null;
    for (const row of body.rows) {
      expect(row.baseline).toEqual(byRow(baselineResults.results, row.rowId));
      expect(row.candidate).toEqual(byRow(candidateResults.results, row.rowId));
    }
    expect(body.rows[5].baseline).toBeNull();
    expect(body.rows[6].candidate).toBeNull();
    expect(body.totals.changes).toEqual({ regressed: 2, improved: 1, changed: 1, unchanged: 1, added: 1, removed: 1 });
    expect(body.totals.baseline).toMatchObject({ results: 6, passRuns: 4, failRuns: 2, unknownRuns: 0 });
    expect(body.totals.candidate).toMatchObject({ results: 6, passRuns: 3, failRuns: 2, unknownRuns: 1 });
    expect(body.totals.baseline.passRate).toBeCloseTo(4 / 6, 10);
    expect(body.totals.candidate.passRate).toBeCloseTo(3 / 6, 10);
    expect(body.totals.delta.passRate).toBeCloseTo(-1 / 6, 10);
    // r4's baseline result cost 0.5 and took 1000 ms and 100 tokens; every other result the fixture's defaults.
    expect(body.totals.baseline.totalCost).toBeCloseTo(0.5 + 5 * 0.0001, 10);
    expect(body.totals.delta.totalCost).toBeCloseTo(-0.5 + 0.0001, 10);
    expect(body.totals.delta.totalLatency).toBeCloseTo(120 - 1000, 6);
    expect(body.totals.delta.totalTokenCount).toBe(20 - 100);
    expect(body.pagination).toEqual({ limit: 50, returned: 7, hasMore: false, nextCursor: null });
  });

  it("200: change filters the rows, not the totals; pages follow the row order with any limit", async () => {
    const h = use();
    const { s, baselineId, candidateId } = await twoRuns(h);
    const [r0, r1, , r3, r4, r5, r6] = s.rowIds;
    const path = comparePath(s, candidateId, baselineId);
    for (const limit of [1, 2, 3, 50]) {
      expect((await readAll(h, path, limit)).map((row) => row.rowId)).toEqual(s.rowIds);
      expect(await readAll(h, `${path}&change=regressed`, limit)).toEqual([
        { rowId: r0, change: "regressed" },
        { rowId: r4, change: "regressed" },
      ]);
    }
    expect(await readAll(h, `${path}&change=improved`, 1)).toEqual([{ rowId: r1, change: "improved" }]);
    expect(await readAll(h, `${path}&change=changed`, 1)).toEqual([{ rowId: r3, change: "changed" }]);
    expect(await readAll(h, `${path}&change=added`, 1)).toEqual([{ rowId: r5, change: "added" }]);
    expect(await readAll(h, `${path}&change=removed`, 1)).toEqual([{ rowId: r6, change: "removed" }]);
    const filtered = await ok(h, "GET", `${path}&change=regressed&limit=1`);
    expect(filtered.totals.changes.unchanged).toBe(1);
    expect(filtered.pagination).toMatchObject({ limit: 1, returned: 1, hasMore: true });
  });

  it("200: a run compared with itself is unchanged everywhere; runs without results have null pass rates", async () => {
    const h = use();
    const { s, baselineId } = await twoRuns(h);
    const self = await ok(h, "GET", comparePath(s, baselineId, baselineId));
    expect(self.totals.changes).toEqual({ regressed: 0, improved: 0, changed: 0, unchanged: 6, added: 0, removed: 0 });
    expect(self.totals.delta).toEqual({ passRate: 0, totalCost: 0, totalLatency: 0, totalTokenCount: 0 });
    const empty = await completedRun(h, s, []);
    const none = await ok(h, "GET", comparePath(s, empty, baselineId));
    expect(none.totals.candidate).toMatchObject({ results: 0, passRate: null });
    expect(none.totals.delta.passRate).toBeNull();
    expect(none.totals.changes.removed).toBe(6);
  });

  it("200: the baseline may be a run of another prompt over the same dataset", async () => {
    const h = use();
    const { s, candidateId } = await twoRuns(h);
    const other = await ok(h, "POST", "/prompts", {
      projectId: h.projectId,
      title: "Other",
      draft: {
        config: { provider: "openai", model: "gpt-4o-mini" },
        messages: [{ role: "user", content: [{ modality: "text", value: "{{question}}" }] }],
      },
    });
    const evaluatorId = await newEvaluator(h, other.id, s.datasetId);
    const otherRun = await completedRun(h, { ...s, promptId: other.id, evaluatorId }, [PASS, PASS]);
    const reply = await ok(h, "GET", comparePath(s, candidateId, otherRun));
    expect(reply.totals.changes).toEqual({ regressed: 1, improved: 0, changed: 0, unchanged: 1, added: 4, removed: 0 });
  });

  it("400 VALIDATION_ERROR naming baselineId for runs of different datasets or not completed", async () => {
    const h = use();
    const { s, baselineId, candidateId } = await twoRuns(h);
    const otherDataset = await newDataset(h, 2);
    const elsewhere = await startRun(h, s.promptId, { datasetId: otherDataset.datasetId });
    await setRun(h, elsewhere.runId, { status: "completed" });
    const check = async (path: string) => {
      const reply = await h.request("GET", path);
      await expectError(reply, 400, "VALIDATION_ERROR");
      expect(reply.body.error.details).toEqual([{ field: "baselineId", issue: expect.any(String) }]);
    };
    await check(comparePath(s, candidateId, elsewhere.runId));
    await check(comparePath(s, elsewhere.runId, baselineId));
    for (const status of ["queued", "running", "cancelling", "cancelled", "failed"] as const) {
      const unfinished = await startRun(h, s.promptId);
      await setRun(h, unfinished.runId, { status });
      await check(comparePath(s, candidateId, unfinished.runId));
      await check(comparePath(s, unfinished.runId, baselineId));
    }
  });

  it("400 for a missing or malformed baselineId, an unknown change, a bad limit; INVALID_CURSOR across queries", async () => {
    const h = use();
    const { s, baselineId, candidateId } = await twoRuns(h);
    const base = `/prompts/${s.promptId}/evaluations/${candidateId}/comparison`;
    for (const query of [
      "",
      "?baselineId=x",
      `?baselineId=${baselineId}&change=worse`,
      `?baselineId=${baselineId}&limit=0`,
    ]) {
      await expectError(await h.request("GET", `${base}${query}`), 400, "VALIDATION_ERROR");
    }
    const first = await ok(h, "GET", `${comparePath(s, candidateId, baselineId)}&limit=1`);
    const cursor = first.pagination.nextCursor;
    for (const path of [
      comparePath(s, candidateId, baselineId, `&change=regressed&cursor=${cursor}`),
      comparePath(s, baselineId, candidateId, `&cursor=${cursor}`),
      comparePath(s, candidateId, baselineId, `&cursor=${cursor.slice(0, -2)}`),
    ]) {
      await expectError(await h.request("GET", path), 400, "INVALID_CURSOR");
    }
  });

  it("404 for an unknown baseline or candidate, or runs of another workspace; 403 for a restricted key", async () => {
    const h = use();
    const { s, baselineId, candidateId } = await twoRuns(h);
    const unknown = `evalrun_${"0".repeat(26)}`;
    await expectError(await h.request("GET", comparePath(s, candidateId, unknown)), 404, "RESOURCE_NOT_FOUND");
    await expectError(await h.request("GET", comparePath(s, unknown, baselineId)), 404, "RESOURCE_NOT_FOUND");
    const other = await h.otherWorkspace();
    await expectError(
      await h.request("GET", comparePath(s, candidateId, baselineId), { key: other.key }),
      404,
      "RESOURCE_NOT_FOUND",
    );
    // Their own run compared with ours: our baseline is unknown to them.
    const theirs = await ok(h, "POST", "/prompts", { projectId: other.projectId, title: "Theirs" }, other.key);
    const foreign = `/prompts/${theirs.id}/evaluations/${unknown}/comparison?baselineId=${baselineId}`;
    await expectError(await h.request("GET", foreign, { key: other.key }), 404, "RESOURCE_NOT_FOUND");
    const { projectId } = await ok(h, "POST", "/projects", { title: "Elsewhere" });
    const restricted = await h.newKey("read-only", [projectId]);
    await expectError(
      await h.request("GET", comparePath(s, candidateId, baselineId), { key: restricted }),
      403,
      "FORBIDDEN",
    );
    const reader = await h.newKey("read-only");
    expect((await h.request("GET", comparePath(s, candidateId, baselineId), { key: reader })).status).toBe(200);
  });
});
