/**
 * Score measures of POST /logs/metrics: counts and averages per score name, from the score rollups kept in the
 * score's transaction, checked against the raw scores after random writes and deletes; the migration's backfill
 * builds the same rollups; and the bad queries.
 */
import { expect, it } from "vitest";
import { backfillScoreRollups } from "../../store/migrations/0020-score-rollups.ts";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore, type Harness } from "../../testing/harness.ts";
import { type Body, newProject } from "../../testing/log-write-fixtures.ts";
import { createScores, scoredTrace } from "../../testing/score-fixtures.ts";
import { seededRandom } from "../../testing/seeded-random.ts";

const MINUTE = 60_000;
const query = (h: Harness, body: Body) => h.request("POST", "/logs/metrics", { body });

interface RawScore {
  id: string;
  name: string;
  value: number | boolean | string;
  createdAt: number;
}

/** Count and mean per score name (and per minute), over the numeric and boolean scores. */
function expectedFrom(scores: readonly RawScore[]) {
  const byName = new Map<
    string,
    { count: number; sum: number; minutes: Map<number, { count: number; sum: number }> }
  >();
  for (const score of scores) {
    if (typeof score.value === "string") continue;
    const value = Number(score.value);
    let entry = byName.get(score.name);
    if (!entry) {
      entry = { count: 0, sum: 0, minutes: new Map() };
      byName.set(score.name, entry);
    }
    const minute = Math.floor(score.createdAt / MINUTE) * MINUTE;
    const point = entry.minutes.get(minute) ?? { count: 0, sum: 0 };
    entry.minutes.set(minute, { count: point.count + 1, sum: point.sum + value });
    entry.count += 1;
    entry.sum += value;
  }
  return byName;
}

async function scoreMetrics(h: Harness, projectId: string, from: number, to: number) {
  const reply = await query(h, {
    projectId,
    from,
    to,
    bucket: "minute",
    metrics: ["scoreCount", "scoreAverage"],
    groupBy: ["scoreName"],
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body;
}

describeEachStore("log metrics: score measures", (use) => {
  it("counts and averages numeric and boolean scores per name, equal to the raw scores after writes and deletes", async () => {
    const h = use();
    const projectId = await newProject(h);
    const { traceId, spanId } = await scoredTrace(h, projectId);
    const next = seededRandom(18).next;
    const from = h.now();
    const raw: RawScore[] = [];
    for (let batch = 0; batch < 6; batch += 1) {
      const scores = Array.from({ length: 15 }, () => {
        const kind = Math.floor(next() * 3);
        const name = kind === 0 ? "helpfulness" : kind === 1 ? "thumbs" : "label";
        const value = kind === 0 ? Math.round(next() * 100) / 10 : kind === 1 ? next() < 0.6 : "neutral";
        return { traceId, ...(next() < 0.5 && { spanId }), name, value };
      });
      raw.push(...((await createScores(h, scores, projectId)) as RawScore[]));
      // Some scores are deleted again: the rollups take them out in the delete's transaction.
      for (const gone of raw.filter(() => next() < 0.1)) {
        const reply = await h.request("DELETE", `/projects/${projectId}/scores/${gone.id}`);
        expect(reply.status, JSON.stringify(reply.body)).toBe(204);
        raw.splice(raw.indexOf(gone), 1);
      }
    }
    const to = h.now() + MINUTE;
    const expected = expectedFrom(raw);

    const answer = await scoreMetrics(h, projectId, from, to);
    expect(answer.truncated).toBe(false);
    expect(answer.groups.map((group: any) => group.key.scoreName).sort()).toEqual([...expected.keys()].sort());
    for (const group of answer.groups) {
      const want = expected.get(group.key.scoreName);
      expect(group.totals.scoreCount).toBe(want?.count);
      expect(group.totals.scoreAverage).toBeCloseTo((want?.sum ?? 0) / (want?.count ?? 1), 9);
      expect(group.series.map((point: any) => [point.start, point.values.scoreCount])).toEqual(
        [...(want?.minutes ?? [])].sort(([a], [b]) => a - b).map(([start, point]) => [start, point.count]),
      );
    }

    // The migration's backfill, run on the stored scores, builds the same rollups.
    await h.store.db.deleteFrom("scoreRollups").where("projectId", "=", projectId).execute();
    expect((await scoreMetrics(h, projectId, from, to)).groups).toEqual([]);
    await backfillScoreRollups(h.store.db);
    // (Sums added in another order may differ in the last bits: averages are compared to 9 decimals.)
    const rounded = (body: any) =>
      body.groups.map((group: any) => [
        group.key.scoreName,
        group.totals.scoreCount,
        group.totals.scoreAverage.toFixed(9),
      ]);
    expect(rounded(await scoreMetrics(h, projectId, from, to))).toEqual(rounded(answer));
  });

  it.each([
    ["without groupBy scoreName", { metrics: ["scoreAverage"] }, "groupBy"],
    ["with a span measure", { metrics: ["scoreAverage", "cost"], groupBy: ["scoreName"] }, "metrics.1"],
    ["grouped by a span dimension too", { metrics: ["scoreCount"], groupBy: ["scoreName", "model"] }, "groupBy.1"],
    ["with a span filter", { metrics: ["scoreCount"], groupBy: ["scoreName"], model: "gpt-4o" }, "model"],
    [
      "with a filter",
      {
        metrics: ["scoreCount"],
        groupBy: ["scoreName"],
        filters: [{ column: "name", operator: "equals", value: "x" }],
      },
      "filters.0",
    ],
    ["a span measure grouped by scoreName", { metrics: ["spanCount"], groupBy: ["scoreName"] }, "groupBy.0"],
  ])("refuses score measures %s (400, the field named)", async (_, body, field) => {
    const h = use();
    const reply = await query(h, {
      projectId: h.projectId,
      from: 1_700_000_000_000,
      to: 1_700_000_060_000,
      bucket: "minute",
      ...body,
    });
    await expectError(reply, 400, "VALIDATION_ERROR");
    expect(reply.body.error.details.map((detail: { field: string }) => detail.field)).toContain(field);
  });
});
