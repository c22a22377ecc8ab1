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

describeEachStore("deleteScoreConfig", (use) => {
  it("deletes the config (204): its name is free again, stored scores stay; a second delete is 404", async () => {
    const h = use();
    const { traceId } = await scoredTrace(h);
    const config = await createScoreConfig(h, { name: "thumbs", rule: { type: "boolean" } });
    await createScores(h, [{ traceId, name: "thumbs", value: true }]);
    await expectError(await postScores(h, [{ traceId, name: "thumbs", value: 5 }]), 400, "VALIDATION_ERROR");
    const path = `/projects/${h.projectId}/score-configs/${config.id}`;
    const reply = await h.request("DELETE", path);
    expect(reply.status).toBe(204);
    expect((await postScores(h, [{ traceId, name: "thumbs", value: 5 }])).status).toBe(201);
    const stored = await searchScores(h, { traceId, sort: "createdAt:asc" });
    expect(stored.body.scores.map((score: { value: unknown }) => score.value)).toEqual([true, 5]);
    await expectError(await h.request("GET", path), 404, "RESOURCE_NOT_FOUND");
    await expectError(await h.request("DELETE", path), 404, "RESOURCE_NOT_FOUND");
  });
});
