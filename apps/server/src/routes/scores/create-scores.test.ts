import { expect, it } from "vitest";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";
import {
  createTrace,
  missingId,
  newProject,
  postTrace,
  stepSpan,
  traceBody,
  uniqueRef,
} from "../../testing/log-write-fixtures.ts";
import {
  createScoreConfig,
  createScores,
  postScores,
  scoredTrace,
  searchScores,
} from "../../testing/score-fixtures.ts";

describeEachStore("createScores", (use) => {
  it("creates scores on a trace and on spans (201, source api, the key as author) in the order sent", async () => {
    const h = use();
    const { traceId, spanId, otherSpanId } = await scoredTrace(h);
    const reply = await postScores(h, [
      { traceId, name: "helpfulness", value: 0.8, comment: "mostly right" },
      { spanId, name: "thumbs", value: true },
      { traceId, spanId: otherSpanId, name: "verdict", value: "correct" },
    ]);
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    const [onTrace, onSpan, onBoth] = reply.body.scores;
    expect(onTrace).toMatchObject({
      projectId: h.projectId,
      traceId,
      spanId: null,
      name: "helpfulness",
      value: 0.8,
      dataType: "numeric",
      comment: "mostly right",
      source: "api",
      evaluatorId: null,
      runId: null,
    });
    expect(onTrace.authorKeyId).toMatch(/^apikey_/);
    // A span names its trace: the score carries both.
    expect(onSpan).toMatchObject({ traceId, spanId, value: true, dataType: "boolean", comment: null });
    expect(onBoth).toMatchObject({ traceId, spanId: otherSpanId, value: "correct", dataType: "categorical" });
    const stored = await searchScores(h, { traceId, sort: "createdAt:asc" });
    expect(stored.body.scores).toEqual(reply.body.scores);
  });

  it("lets an ingest-only key write its users' feedback; a read-only key gets 403", async () => {
    const h = use();
    const { spanId } = await scoredTrace(h);
    const ingest = await postScores(h, [{ spanId, name: "thumbs", value: false }], {
      key: await h.newKey("ingest-only"),
    });
    expect(ingest.status, JSON.stringify(ingest.body)).toBe(201);
    const readOnly = await postScores(h, [{ spanId, name: "thumbs", value: true }], {
      key: await h.newKey("read-only"),
    });
    await expectError(readOnly, 403, "FORBIDDEN");
  });

  it("404 for a trace or span of another project or workspace, or none; nothing of the batch is stored", async () => {
    const h = use();
    const { traceId } = await scoredTrace(h);
    const otherProject = await newProject(h);
    const elsewhere = await scoredTrace(h, otherProject);
    const other = await h.otherWorkspace();
    const foreign = await postTrace(h, traceBody(h, {}, [stepSpan()], other.projectId), other.key);
    expect(foreign.status, JSON.stringify(foreign.body)).toBe(200);
    const cases = [
      { traceId: elsewhere.traceId },
      { spanId: elsewhere.spanId },
      { traceId: foreign.body.traceId },
      { spanId: foreign.body.spanIds[0] },
      { traceId: missingId("trace") },
      { spanId: missingId("span") },
    ];
    for (const target of cases) {
      const reply = await postScores(h, [
        { traceId, name: "kept?", value: 1 },
        { ...target, name: "x", value: 1 },
      ]);
      await expectError(reply, 404, "RESOURCE_NOT_FOUND");
    }
    // The other workspace's own key sees its trace, but not through this workspace's project: 404 too.
    const crossed = await postScores(h, [{ traceId, name: "x", value: 1 }], { key: other.key });
    await expectError(crossed, 404, "RESOURCE_NOT_FOUND");
    expect((await searchScores(h, { traceId })).body.scores).toEqual([]);
  });

  it("400 for 101 scores, a score naming neither a trace nor a span, a span of another trace, a bad value", async () => {
    const h = use();
    const { traceId, spanId } = await scoredTrace(h);
    const second = await scoredTrace(h);
    const many = Array.from({ length: 101 }, (_, index) => ({ traceId, name: `n${index}`, value: index }));
    await expectError(await postScores(h, many), 400, "VALIDATION_ERROR");
    expect((await postScores(h, many.slice(0, 100))).status).toBe(201);

    const bad: [Record<string, unknown>, string][] = [
      [{ name: "x", value: 1 }, "scores.1"],
      [{ traceId: second.traceId, spanId, name: "x", value: 1 }, "scores.1.spanId"],
      [{ traceId, name: "", value: 1 }, "scores.1.name"],
      [{ traceId, name: "x", value: "" }, "scores.1.value"],
      [{ traceId, name: "x", value: null }, "scores.1.value"],
      [{ traceId, name: "x", value: { a: 1 } }, "scores.1.value"],
      [{ traceId, name: "x", value: 1, comment: "c".repeat(10_001) }, "scores.1.comment"],
      [{ traceId, name: "x", value: 1, extra: true }, "scores.1"],
    ];
    for (const [score, field] of bad) {
      const reply = await postScores(h, [{ traceId: second.traceId, name: "kept?", value: 1 }, score]);
      await expectError(reply, 400, "VALIDATION_ERROR");
      expect(reply.body.error.details.map((detail: { field: string }) => detail.field)).toContain(field);
    }
    expect((await searchScores(h, { traceId: second.traceId })).body.scores).toEqual([]);
  });

  it("400 naming the rule for a value that breaks its score config; other names are free", async () => {
    const h = use();
    const { traceId } = await scoredTrace(h);
    await createScoreConfig(h, { name: "helpfulness", rule: { type: "numeric", min: 0, max: 1 } });
    await createScoreConfig(h, { name: "verdict", rule: { type: "categorical", categories: ["correct", "wrong"] } });
    await createScoreConfig(h, { name: "thumbs", rule: { type: "boolean" } });
    const broken: [Record<string, unknown>, string][] = [
      [{ name: "helpfulness", value: 1.5 }, 'must be between 0 and 1 (score config "helpfulness")'],
      [{ name: "helpfulness", value: true }, 'must be a number (score config "helpfulness")'],
      [{ name: "verdict", value: "maybe" }, 'must be one of "correct", "wrong" (score config "verdict")'],
      [{ name: "thumbs", value: "up" }, 'must be a boolean (score config "thumbs")'],
    ];
    for (const [score, issue] of broken) {
      const reply = await postScores(h, [
        { traceId, name: "free", value: "anything" },
        { traceId, ...score },
      ]);
      await expectError(reply, 400, "VALIDATION_ERROR");
      expect(reply.body.error.details).toEqual([{ field: "scores.1.value", issue }]);
      expect(reply.body.error.message).toContain(issue);
    }
    expect((await searchScores(h, { traceId })).body.scores).toEqual([]);
    const fitting = await createScores(h, [
      { traceId, name: "helpfulness", value: 0 },
      { traceId, name: "verdict", value: "wrong" },
      { traceId, name: "thumbs", value: false },
      { traceId, name: "unconfigured", value: 42 },
    ]);
    expect(fitting.map((score) => score.value)).toEqual([0, "wrong", false, 42]);
  });

  it("finds a trace by the application's referenceId: end-user feedback without Pharos ids", async () => {
    const h = use();
    const referenceId = uniqueRef("request");
    const { traceId } = await createTrace(h, traceBody(h, { referenceId }, [stepSpan()]));
    const [score] = await createScores(h, [{ traceReferenceId: referenceId, name: "thumbs", value: false }]);
    expect(score).toMatchObject({ traceId, spanId: null, value: false });
    const unknown = await postScores(h, [{ traceReferenceId: uniqueRef("nobody"), name: "thumbs", value: true }]);
    await expectError(unknown, 404, "RESOURCE_NOT_FOUND");
    const elsewhere = await newProject(h);
    const otherProject = await postScores(h, [{ traceReferenceId: referenceId, name: "thumbs", value: true }], {
      projectId: elsewhere,
    });
    await expectError(otherProject, 404, "RESOURCE_NOT_FOUND");
    const both = await postScores(h, [{ traceId, traceReferenceId: referenceId, name: "thumbs", value: true }]);
    await expectError(both, 400, "VALIDATION_ERROR");
    expect(both.body.error.details[0].field).toBe("scores.0.traceReferenceId");
    expect((await searchScores(h, { traceId })).body.scores).toEqual([score]);
  });
});
