/**
 * listEvaluationResults. Results are written straight into the table, standing in for a worker (none runs in
 * the harness), with chosen times and scores so every tie-break of the sort orders is exercised.
 */
import { expect, it } from "vitest";
import type { Database } from "../../store/schema.ts";
import { insertResult, ok, type Setup, setRun, setup, startRun } from "../../testing/evaluation-fixtures.ts";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore, type Harness } from "../../testing/harness.ts";

const _unknown = (prefix: string) => `${prefix}_${"0".repeat(26)}`;

type Result = Database["evaluationResults"];

/**
 * A completed run over five rows with results r0…r4 (ids increasing): r1 and r2 share createdAt, r3 and r4
 * share createdAt and score, and r1, r3 and r4 share a score.
 */
async function runWithResults(h: Harness) {
  const s = await setup(h, { rows: 5 });
  const run = await startRun(h, s.promptId);
  const t = run.timeline.submittedAt as number;
  const specs: Partial<Result>[] = [
    { grade: "pass", score: 1, createdAt: t + 1 },
    { grade: "fail", score: 0.2, createdAt: t + 2 },
    { grade: "unknown", score: 0, createdAt: t + 2, output: null, error: "Provider error: 429.", reason: "" },
    { grade: "pass", score: 0.2, createdAt: t + 3 },
    { grade: "fail", score: 0.2, createdAt: t + 3 },
  ];
  const results: Result[] = [];
  for (const [i, spec] of specs.entries()) {
    results.push(
      await insertResult(h, run.runId, s.rowIds[i] as string, { ...spec, createdAt: spec.createdAt as number }),
    );
  }
  await setRun(h, run.runId, { status: "completed", completedRows: 4, failedRows: 1, finishedAt: t + 4 });
  return { s, runId: run.runId as string, results };
}

const resultsPath = (s: Setup, runId: string) => `/prompts/${s.promptId}/evaluations/${runId}/results`;

/** Every page of the query, `limit` at a time, following nextCursor. */
async function readAll(h: Harness, path: string, query: string, limit = 2) {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const reply: any = await h.request("GET", `${path}?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ""}`);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    ids.push(...reply.body.results.map((result: { id: string }) => result.id));
    cursor = reply.body.pagination.nextCursor;
  } while (cursor);
  return ids;
}

describeEachStore("listEvaluationResults", (use) => {
  it("200: results newest first by default, in the documented shape, without the row unless expanded", async () => {
    const h = use();
    const { s, runId, results } = await runWithResults(h);
    const other = await startRun(h, s.promptId);
    await insertResult(h, other.runId, s.rowIds[0] as string, { createdAt: h.now() });
    const reply = await h.request("GET", resultsPath(s, runId));
    expect(reply.status).toBe(200);
    const [r0, r1, r2, r3, r4] = results as [Result, Result, Result, Result, Result];
    expect(reply.body.results.map((result: { id: string }) => result.id)).toEqual([r4.id, r3.id, r2.id, r1.id, r0.id]);
    const { runId: _runId, ...shape } = r2;
    expect(reply.body.results[2]).toEqual(shape);
    expect(reply.body.pagination).toEqual({ limit: 50, returned: 5, hasMore: false, nextCursor: null });
  });

  it("200: sorts by time or score in either direction, ties by createdAt then id, across pages", async () => {
    const h = use();
    const { s, runId, results } = await runWithResults(h);
    const [r0, r1, r2, r3, r4] = results.map((result) => result.id) as string[];
    const path = resultsPath(s, runId);
    const orders: [string, (string | undefined)[]][] = [
      ["createdAt:desc", [r4, r3, r2, r1, r0]],
      ["createdAt:asc", [r0, r1, r2, r3, r4]],
      ["score:asc", [r2, r1, r3, r4, r0]],
      ["score:desc", [r0, r4, r3, r1, r2]],
    ];
    for (const [sort, expected] of orders) {
      for (const limit of [1, 2, 50]) expect(await readAll(h, path, `&sort=${sort}`, limit), sort).toEqual(expected);
    }
  });

  it("200: filters by grade, with the sort and pages of the filtered list", async () => {
    const h = use();
    const { s, runId, results } = await runWithResults(h);
    const [r0, r1, r2, r3, r4] = results.map((result) => result.id) as string[];
    const path = resultsPath(s, runId);
    expect(await readAll(h, path, "&grade=fail", 1)).toEqual([r4, r1]);
    expect(await readAll(h, path, "&grade=pass&sort=score:asc", 1)).toEqual([r3, r0]);
    expect(await readAll(h, path, "&grade=unknown")).toEqual([r2]);
  });

  it("400 INVALID_CURSOR for a cursor of another sort, grade, run or expansion, or a tampered one", async () => {
    const h = use();
    const { s, runId } = await runWithResults(h);
    const path = resultsPath(s, runId);
    const first = await h.request("GET", `${path}?limit=2&sort=score:asc`);
    const cursor = first.body.pagination.nextCursor;
    expect(cursor).toEqual(expect.any(String));
    const second = await startRun(h, s.promptId);
    for (const query of [
      `${path}?limit=2&sort=score:desc&cursor=${cursor}`,
      `${path}?limit=2&sort=createdAt:asc&cursor=${cursor}`,
      `${path}?limit=2&sort=score:asc&grade=pass&cursor=${cursor}`,
      `${path}?limit=2&sort=score:asc&expand=row&cursor=${cursor}`,
      `${resultsPath(s, second.runId)}?limit=2&sort=score:asc&cursor=${cursor}`,
      `${path}?limit=2&sort=score:asc&cursor=${cursor.slice(0, -2)}`,
    ]) {
      await expectError(await h.request("GET", query), 400, "INVALID_CURSOR");
    }
    expect((await h.request("GET", `${path}?limit=3&sort=score:asc&cursor=${cursor}`)).status).toBe(200);
  });

  it("200 with expand=row: each result's dataset row as it is now (every current column), null once deleted", async () => {
    const h = use();
    const { s, runId, results } = await runWithResults(h);
    const [r0, r1] = results as [Result, Result];
    await ok(h, "PATCH", `/datasets/${s.datasetId}/rows/${r0.rowId}`, { values: { question: "Edited" } });
    await ok(h, "DELETE", `/datasets/${s.datasetId}/rows/${r1.rowId}`);
    const added = await ok(h, "POST", `/datasets/${s.datasetId}/columns`, {
      columns: [{ name: "notes", type: "static" }],
    });
    const notes = added.columns[0].id;
    const reply = await h.request("GET", `${resultsPath(s, runId)}?expand=row&sort=createdAt:asc`);
    expect(reply.status).toBe(200);
    const [first, second, third] = reply.body.results;
    const current = await ok(h, "GET", `/datasets/${s.datasetId}/rows?sort=createdAt:asc`);
    expect(first.row).toEqual(current.rows[0]);
    expect(first.row).toMatchObject({
      id: r0.rowId,
      values: { [s.columns.question]: "Edited", [s.columns.expected]: "A0", [notes]: null },
    });
    expect(first.row.updatedAt).toBeGreaterThan(first.row.createdAt);
    expect(second.rowId).toBe(r1.rowId);
    expect(second.row).toBeNull();
    expect(third.row).toEqual(current.rows[1]);
    expect(reply.body.results.every((result: object) => "row" in result)).toBe(true);
  });

  it("200 with an empty list for a run without results", async () => {
    const h = use();
    const s = await setup(h);
    const run = await startRun(h, s.promptId);
    const reply = await h.request("GET", `${resultsPath(s, run.runId)}?expand=row&sort=score:desc`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      results: [],
      pagination: { limit: 50, returned: 0, hasMore: false, nextCursor: null },
    });
  });
});
