import { expect, it } from "vitest";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";
import {
  createScoreConfig,
  createScores,
  postScores,
  scoredTrace,
  searchScores,
} from "../../testing/score-fixtures.ts";

describeEachStore("updateScoreConfig", (use) => {
  it("replaces the rule (its type too) for scores created afterwards; stored scores stay", async () => {
    const h = use();
    const { traceId } = await scoredTrace(h);
    const config = await createScoreConfig(h, { name: "rating", rule: { type: "numeric", min: 0, max: 1 } });
    const [before] = await createScores(h, [{ traceId, name: "rating", value: 1 }]);
    const path = `/projects/${h.projectId}/score-configs/${config.id}`;
    const widened = await h.request("PATCH", path, { body: { rule: { type: "numeric", min: 0, max: 10 } } });
    expect(widened.status).toBe(200);
    expect(widened.body).toMatchObject({ name: "rating", description: "", rule: { type: "numeric", min: 0, max: 10 } });
    expect(widened.body.updatedAt).toBeGreaterThan(config.updatedAt);
    expect((await postScores(h, [{ traceId, name: "rating", value: 7 }])).status).toBe(201);

    const retyped = await h.request("PATCH", path, {
      body: { description: "stars", rule: { type: "categorical", categories: ["*", "**"] } },
    });
    expect(retyped.body).toMatchObject({
      description: "stars",
      rule: { type: "categorical", categories: ["*", "**"] },
    });
    await expectError(await postScores(h, [{ traceId, name: "rating", value: 7 }]), 400, "VALIDATION_ERROR");
    expect((await postScores(h, [{ traceId, name: "rating", value: "**" }])).status).toBe(201);
    const stored = await searchScores(h, { traceId, sort: "createdAt:asc" });
    expect(stored.body.scores.map((score: { value: unknown }) => score.value)).toEqual([1, 7, "**"]);
    expect(stored.body.scores[0]).toEqual(before);
    expect((await h.request("GET", path)).body).toEqual(retyped.body);
  });

  it("400 for an empty change or min above max; 404 for an unknown config", async () => {
    const h = use();
    const config = await createScoreConfig(h, { name: "bounded", rule: { type: "numeric", min: 0, max: 1 } });
    const path = `/projects/${h.projectId}/score-configs/${config.id}`;
    await expectError(await h.request("PATCH", path, { body: {} }), 400, "VALIDATION_ERROR");
    const inverted = await h.request("PATCH", path, { body: { rule: { type: "numeric", min: 5, max: 1 } } });
    await expectError(inverted, 400, "VALIDATION_ERROR");
    expect(inverted.body.error.details[0].field).toBe("rule.max");
    expect((await h.request("GET", path)).body).toEqual(config);
    const unknown = await h.request("PATCH", `/projects/${h.projectId}/score-configs/scoreconfig_${"0".repeat(26)}`, {
      body: { description: "x" },
    });
    await expectError(unknown, 404, "RESOURCE_NOT_FOUND");
  });
});
