import { expect, it } from "vitest";
import { newDataset, newEvaluator, setRun, setup, startRun } from "../../testing/evaluation-fixtures.ts";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";

const runIds = (reply: { body: { evaluations: { runId: string }[] } }) =>
  reply.body.evaluations.map((run) => run.runId);

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
});
