import { expect, it } from "vitest";
import { createEvaluator, fixture, judged, judgeFixture, RUBRIC } from "../../testing/evaluator-fixtures.ts";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";

describeEachStore("updateEvaluator", (use) => {
  it("updates title, dataset, config and status (200); 404 for an unknown dataset", async () => {
    const h = use();
    const { promptId, datasetId } = await fixture(h);
    const { body: evaluator } = await createEvaluator(h, promptId, { datasetId, config: RUBRIC });
    const { body: dataset2 } = await h.request("POST", "/datasets", { body: { projectId: h.projectId, title: "D2" } });
    const path = `/prompts/${promptId}/evaluators/${evaluator.id}`;
    const updated = await h.request("PATCH", path, {
      body: { title: "New", datasetId: dataset2.id, config: { type: "cost", operator: "less-than", threshold: 1 } },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      title: "New",
      datasetId: dataset2.id,
      config: { type: "cost", group: "performance" },
    });
    expect(updated.body.updatedAt).toBeGreaterThan(evaluator.updatedAt);
    expect((await h.request("PATCH", path, { body: { status: "archived" } })).body.status).toBe("archived");
    expect((await h.request("PATCH", path, { body: { status: "active" } })).body.status).toBe("active");
    await expectError(
      await h.request("PATCH", path, { body: { datasetId: `dataset_${"0".repeat(26)}` } }),
      404,
      "RESOURCE_NOT_FOUND",
    );
  });

  it("checks a judge model's providerId: a record of the workspace (200), else 404 and nothing changes", async () => {
    const h = use();
    const { promptId, datasetId, record, foreign } = await judgeFixture(h);
    const created = await createEvaluator(h, promptId, { datasetId, config: judged(record) });
    const path = `/prompts/${promptId}/evaluators/${created.body.id}`;
    for (const providerId of [`provider_${"0".repeat(26)}`, foreign]) {
      await expectError(
        await h.request("PATCH", path, { body: { config: judged(providerId) } }),
        404,
        "RESOURCE_NOT_FOUND",
      );
    }
    expect((await h.request("GET", path)).body).toEqual(created.body);
    const updated = await h.request("PATCH", path, { body: { config: RUBRIC } });
    expect(updated.body.config.judgeModel).toBeNull();
  });
});
