import { expect, it } from "vitest";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore, type Harness } from "../../testing/harness.ts";
import { newProject } from "../../testing/log-write-fixtures.ts";
import { createScores, scoredTrace, searchScores } from "../../testing/score-fixtures.ts";

/** Two traces with scores of every kind; the second project's score must never show. */
async function scoredProject(h: Harness) {
  const projectId = await newProject(h);
  const first = await scoredTrace(h, projectId);
  const second = await scoredTrace(h, projectId);
  const scores = await createScores(
    h,
    [
      { traceId: first.traceId, name: "helpfulness", value: 0.2 },
      { spanId: first.spanId, name: "helpfulness", value: 0.9 },
      { spanId: first.spanId, name: "thumbs", value: true },
      { spanId: first.otherSpanId, name: "verdict", value: "correct" },
      { traceId: second.traceId, name: "helpfulness", value: 0.5 },
      { spanId: second.spanId, name: "thumbs", value: false },
    ],
    projectId,
  );
  const elsewhere = await scoredTrace(h);
  await createScores(h, [{ traceId: elsewhere.traceId, name: "helpfulness", value: 0.5 }]);
  return { projectId, first, second, ids: scores.map((score) => score.id as string) };
}

const idsOf = (reply: { body: { scores: { id: string }[] } }) => reply.body.scores.map((score) => score.id);

describeEachStore("searchScores", (use) => {
  it("returns the project's scores newest first, or oldest first with sort", async () => {
    const h = use();
    const { projectId, ids } = await scoredProject(h);
    const newest = await searchScores(h, {}, projectId);
    expect(newest.status).toBe(200);
    expect(idsOf(newest)).toEqual([...ids].reverse());
    expect(idsOf(await searchScores(h, { sort: "createdAt:asc" }, projectId))).toEqual(ids);
  });

  it("filters by trace, span, name, source, value range and time, ANDed", async () => {
    const h = use();
    const { projectId, first, second, ids } = await scoredProject(h);
    const search = async (body: Record<string, unknown>) =>
      idsOf(await searchScores(h, { ...body, sort: "createdAt:asc" }, projectId));
    const [onTrace, onSpan, thumbsUp, verdict, secondTrace, thumbsDown] = ids;
    // A trace's scores include those on its spans.
    expect(await search({ traceId: first.traceId })).toEqual([onTrace, onSpan, thumbsUp, verdict]);
    expect(await search({ spanId: first.spanId })).toEqual([onSpan, thumbsUp]);
    expect(await search({ traceId: second.traceId, name: "thumbs" })).toEqual([thumbsDown]);
    expect(await search({ name: "helpfulness" })).toEqual([onTrace, onSpan, secondTrace]);
    expect(await search({ source: "api" })).toEqual(ids);
    expect(await search({ source: "evaluator" })).toEqual([]);
    // A value range reads numbers and booleans (1 / 0), never categories.
    expect(await search({ minValue: 0.5 })).toEqual([onSpan, thumbsUp, secondTrace]);
    expect(await search({ maxValue: 0.2 })).toEqual([onTrace, thumbsDown]);
    expect(await search({ name: "helpfulness", minValue: 0.3, maxValue: 0.9 })).toEqual([onSpan, secondTrace]);
    // One request's scores share their creation time; a later request's are after it.
    const [late] = await createScores(h, [{ traceId: second.traceId, name: "late", value: 1 }], projectId);
    const batchTime = (await searchScores(h, { traceId: first.traceId }, projectId)).body.scores[0].createdAt;
    expect(late.createdAt).toBeGreaterThan(batchTime);
    expect(await search({ createdAfter: late.createdAt })).toEqual([late.id]);
    expect(await search({ createdBefore: late.createdAt - 1 })).toEqual(ids);
    expect(await search({ createdAfter: batchTime, createdBefore: batchTime, name: "thumbs" })).toEqual([
      thumbsUp,
      thumbsDown,
    ]);
  });

  it("pages with a keyset cursor bound to its search (400 INVALID_CURSOR otherwise)", async () => {
    const h = use();
    const { projectId, ids } = await scoredProject(h);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await searchScores(h, { limit: 4, ...(cursor && { cursor }) }, projectId);
      expect(page.status).toBe(200);
      seen.push(...idsOf(page));
      cursor = page.body.pagination.nextCursor ?? undefined;
      // A score written between pages is newer than the position: the next page neither repeats nor skips.
      if (cursor)
        await createScores(
          h,
          [{ traceId: (await scoredTrace(h, projectId)).traceId, name: "late", value: 1 }],
          projectId,
        );
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
    const first = await searchScores(h, { limit: 1 }, projectId);
    const foreign = await searchScores(
      h,
      { limit: 1, name: "thumbs", cursor: first.body.pagination.nextCursor },
      projectId,
    );
    await expectError(foreign, 400, "INVALID_CURSOR");
  });

  it("is denied to ingest-only keys (403) and to other workspaces (404)", async () => {
    const h = use();
    const { projectId } = await scoredProject(h);
    const ingest = await h.request("POST", `/projects/${projectId}/scores/search`, {
      body: {},
      key: await h.newKey("ingest-only"),
    });
    await expectError(ingest, 403, "FORBIDDEN");
    const other = await h.otherWorkspace();
    const crossed = await h.request("POST", `/projects/${projectId}/scores/search`, { body: {}, key: other.key });
    await expectError(crossed, 404, "RESOURCE_NOT_FOUND");
  });
});
