/**
 * Scores in log search: the score summary every trace and span item carries (and export with it, as it
 * shares the items), and the `scores` column of the filter grammar, on both searches.
 */
import { expect, it } from "vitest";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore, type Harness } from "../../testing/harness.ts";
import { newProject } from "../../testing/log-write-fixtures.ts";
import { createScores, scoredTrace } from "../../testing/score-fixtures.ts";

type Filter = Record<string, unknown>;

const searchTraces = (h: Harness, projectId: string, filters: Filter[] = []) =>
  h.request("POST", "/logs/traces", { body: { projectId, filters, sort: "startedAt:asc" } });
const searchSpans = (h: Harness, projectId: string, filters: Filter[] = []) =>
  h.request("POST", "/logs/spans", { body: { projectId, filters } });

/** Three traces: feedback on the first two, evaluator-like scores on spans, none on the third. */
async function scoredLogs(h: Harness) {
  const projectId = await newProject(h);
  const good = await scoredTrace(h, projectId);
  const bad = await scoredTrace(h, projectId);
  const unscored = await scoredTrace(h, projectId);
  await createScores(
    h,
    [
      { traceId: good.traceId, name: "thumbs", value: false },
      { spanId: good.spanId, name: "helpfulness", value: 0.9 },
      { spanId: good.spanId, name: "verdict", value: "correct" },
      { traceId: bad.traceId, name: "thumbs", value: false },
      { spanId: bad.spanId, name: "helpfulness", value: 0.2 },
    ],
    projectId,
  );
  // A later request: the latest thumbs of the good trace is up, and it has two in all.
  await createScores(h, [{ traceId: good.traceId, name: "thumbs", value: true }], projectId);
  return { projectId, good, bad, unscored };
}

const ids = (reply: { body: { traces?: { id: string }[]; spans?: { id: string }[] } }) =>
  (reply.body.traces ?? reply.body.spans ?? []).map((item) => item.id);

describeEachStore("log search by score", (use) => {
  it("carries each trace's and span's score summary: count and latest value per name, in name order", async () => {
    const h = use();
    const { projectId, good, bad, unscored } = await scoredLogs(h);
    const traces = await searchTraces(h, projectId);
    expect(traces.status).toBe(200);
    const byId = new Map(traces.body.traces.map((trace: { id: string; scores: unknown }) => [trace.id, trace.scores]));
    // A trace's summary counts the scores on its spans too.
    expect(byId.get(good.traceId)).toEqual([
      { name: "helpfulness", count: 1, latestValue: 0.9, latestAt: expect.any(Number) },
      { name: "thumbs", count: 2, latestValue: true, latestAt: expect.any(Number) },
      { name: "verdict", count: 1, latestValue: "correct", latestAt: expect.any(Number) },
    ]);
    expect(byId.get(bad.traceId)).toMatchObject([
      { name: "helpfulness", count: 1, latestValue: 0.2 },
      { name: "thumbs", count: 1, latestValue: false },
    ]);
    expect(byId.get(unscored.traceId)).toEqual([]);

    const spans = await searchSpans(h, projectId);
    const spanScores = new Map(spans.body.spans.map((span: { id: string; scores: unknown }) => [span.id, span.scores]));
    expect(spanScores.get(good.spanId)).toMatchObject([
      { name: "helpfulness", count: 1, latestValue: 0.9 },
      { name: "verdict", count: 1, latestValue: "correct" },
    ]);
    // Scores on the trace itself are not on its spans.
    expect(spanScores.get(good.otherSpanId)).toEqual([]);

    // Export shares the search's items: the same summaries, line for line.
    const exported = await h.app.request("/v2/logs/traces/export", {
      method: "POST",
      headers: { Authorization: `Bearer ${h.key}`, "Content-Type": "application/json" },
      body: JSON.stringify({ projectId, sort: "startedAt:asc" }),
    });
    const lines = (await exported.text())
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.filter((line) => "id" in line)).toEqual(traces.body.traces);
  });

  it("filters traces and spans on a score: equals, not-equals, number comparisons, exists", async () => {
    const h = use();
    const { projectId, good, bad, unscored } = await scoredLogs(h);
    const traces = async (filter: Filter) => ids(await searchTraces(h, projectId, [{ column: "scores", ...filter }]));
    const spans = async (filter: Filter) => ids(await searchSpans(h, projectId, [{ column: "scores", ...filter }]));
    // Any score of the name matches: the good trace had a thumbs down before its thumbs up.
    expect(await traces({ name: "thumbs", operator: "equals", value: false })).toEqual([good.traceId, bad.traceId]);
    expect(await traces({ name: "thumbs", operator: "equals", value: true })).toEqual([good.traceId]);
    // not-equals keeps rows without a score of the name equal to the value, unscored ones included.
    expect(await traces({ name: "thumbs", operator: "not-equals", value: true })).toEqual([
      bad.traceId,
      unscored.traceId,
    ]);
    // Same type only: a boolean does not equal 1.
    expect(await traces({ name: "thumbs", operator: "equals", value: 1 })).toEqual([]);
    expect(await traces({ name: "helpfulness", operator: "gte", value: 0.5 })).toEqual([good.traceId]);
    expect(await traces({ name: "helpfulness", operator: "lt", value: 0.5 })).toEqual([bad.traceId]);
    // Booleans compare as 1 / 0.
    expect(await traces({ name: "thumbs", operator: "gt", value: 0.5 })).toEqual([good.traceId]);
    expect(await traces({ name: "verdict", operator: "equals", value: "correct" })).toEqual([good.traceId]);
    expect(await traces({ name: "verdict", operator: "exists", value: false })).toEqual([
      bad.traceId,
      unscored.traceId,
    ]);
    expect(await spans({ name: "helpfulness", operator: "exists", value: true })).toEqual([bad.spanId, good.spanId]);
    expect(await spans({ name: "helpfulness", operator: "lte", value: 0.2 })).toEqual([bad.spanId]);
    // ANDed with the other filters.
    const both = await searchTraces(h, projectId, [
      { column: "scores", name: "thumbs", operator: "equals", value: false },
      { column: "scores", name: "helpfulness", operator: "gt", value: 0.5 },
    ]);
    expect(ids(both)).toEqual([good.traceId]);
  });

  it("400 for a value the operator cannot take, or a filter the grammar rejects", async () => {
    const h = use();
    const { projectId } = await scoredLogs(h);
    const rejected: [Filter, string][] = [
      [{ name: "helpfulness", operator: "gt", value: "high" }, "filters.0.value"],
      [{ name: "thumbs", operator: "exists", value: 1 }, "filters.0.value"],
      [{ name: "thumbs", operator: "contains", value: "x" }, "filters.0"],
      [{ name: "", operator: "equals", value: 1 }, "filters.0"],
      [{ operator: "equals", value: 1 }, "filters.0"],
    ];
    for (const [filter, field] of rejected) {
      for (const search of [searchTraces, searchSpans]) {
        const reply = await search(h, projectId, [{ column: "scores", ...filter }]);
        await expectError(reply, 400, "VALIDATION_ERROR");
        expect(reply.body.error.details[0].field).toContain(field);
      }
    }
  });
});
