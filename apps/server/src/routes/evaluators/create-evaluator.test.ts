import { expect, it } from "vitest";
import { createEvaluator, fixture, judged, judgeFixture, RUBRIC } from "../../testing/evaluator-fixtures.ts";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";

describeEachStore("createEvaluator", (use) => {
  it("creates an evaluator (201, active, normalized config) and reads it back", async () => {
    const h = use();
    const { promptId, datasetId } = await fixture(h);
    const created = await createEvaluator(h, promptId, { datasetId, title: "Polite", config: RUBRIC });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      promptId,
      datasetId,
      title: "Polite",
      status: "active",
      config: { ...RUBRIC, group: "ai-powered", judgeModel: null },
    });
    const read = await h.request("GET", `/prompts/${promptId}/evaluators/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
  });

  it("fills defaults of every config type and checks their save-time rules (400)", async () => {
    const h = use();
    const { promptId, datasetId } = await fixture(h);
    const accepted: [Record<string, unknown>, Record<string, unknown>][] = [
      [
        { type: "text-matcher", operator: "contains-any", value: ["a"] },
        { group: "code", caseSensitive: true },
      ],
      [{ type: "json", mode: "exact-match", expected: '{"a":1}' }, { group: "code" }],
      [{ type: "json", mode: "schema", schema: { type: "object" } }, { group: "code" }],
      [
        { type: "javascript", code: "return { grade: 'pass', score: 1, reason: '' };" },
        { group: "code", timeoutMs: 5000 },
      ],
      [{ type: "cost", operator: "less-than", threshold: 0.01 }, { group: "performance" }],
      [{ type: "latency", operator: "less-than", threshold: 2, unit: "s" }, { group: "performance" }],
      [{ type: "response-length", operator: "greater-than", threshold: 3, unit: "words" }, { group: "performance" }],
    ];
    for (const [config, filled] of accepted) {
      const reply = await createEvaluator(h, promptId, { datasetId, config });
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      expect(reply.body.config).toEqual({ ...config, ...filled });
    }
    const rejected: [Record<string, unknown>, string][] = [
      [{ type: "text-matcher", operator: "equals", value: ["a"] }, "config.value"],
      [{ type: "text-matcher", operator: "contains-all", value: "a" }, "config.value"],
      [{ type: "text-matcher", operator: "regex", value: "(" }, "config.value"],
      [{ type: "json", mode: "exact-match" }, "config.expected"],
      [{ type: "json", mode: "valid-json", expected: "{}" }, "config.expected"],
      [{ type: "json", mode: "exact-match", expected: "{nope" }, "config.expected"],
      [{ type: "json", mode: "schema" }, "config.schema"],
      [{ type: "javascript", code: "return {" }, "config.code"],
      [{ ...RUBRIC, group: "code" }, "config.group"],
    ];
    for (const [config, field] of rejected) {
      const reply = await createEvaluator(h, promptId, { datasetId, config });
      await expectError(reply, 400, "VALIDATION_ERROR");
      expect(reply.body.error.details[0].field).toBe(field);
    }
    await expectError(
      await createEvaluator(h, promptId, { datasetId, config: { type: "vibes", value: "x" } }),
      400,
      "VALIDATION_ERROR",
    );
  });

  it("answers 400 for a project or a dataset that is not the prompt's, and 404 for an unknown dataset", async () => {
    const h = use();
    const { promptId, datasetId } = await fixture(h);
    const { body: otherProject } = await h.request("POST", "/projects", { body: { title: "Other" } });
    const other = await fixture(h, otherProject.id);
    const wrongProject = await createEvaluator(h, promptId, { datasetId, projectId: otherProject.id, config: RUBRIC });
    await expectError(wrongProject, 400, "VALIDATION_ERROR");
    const wrongDataset = await createEvaluator(h, promptId, { datasetId: other.datasetId, config: RUBRIC });
    await expectError(wrongDataset, 400, "VALIDATION_ERROR");
    const unknownDataset = await createEvaluator(h, promptId, {
      datasetId: `dataset_${"0".repeat(26)}`,
      config: RUBRIC,
    });
    await expectError(unknownDataset, 404, "RESOURCE_NOT_FOUND");
  });

  it("checks a judge model's providerId: a record of the workspace (201), else 404", async () => {
    const h = use();
    const { promptId, datasetId, record, foreign } = await judgeFixture(h);
    const created = await createEvaluator(h, promptId, { datasetId, config: judged(record) });
    expect(created.status).toBe(201);
    expect(created.body.config.judgeModel).toEqual({ providerId: record, model: "gpt-4o-mini" });
    for (const providerId of [`provider_${"0".repeat(26)}`, foreign]) {
      await expectError(
        await createEvaluator(h, promptId, { datasetId, config: judged(providerId) }),
        404,
        "RESOURCE_NOT_FOUND",
      );
    }
  });
});
