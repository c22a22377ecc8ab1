import { expect, it } from "vitest";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";
import { missingId, newProject } from "../../testing/log-write-fixtures.ts";
import { createScores, scoredTrace, searchScores } from "../../testing/score-fixtures.ts";

describeEachStore("deleteScore", (use) => {
  it("deletes one score (204) and leaves the others; a second delete is 404", async () => {
    const h = use();
    const { traceId } = await scoredTrace(h);
    const [gone, kept] = await createScores(h, [
      { traceId, name: "thumbs", value: true },
      { traceId, name: "thumbs", value: false },
    ]);
    const reply = await h.request("DELETE", `/projects/${h.projectId}/scores/${gone.id}`);
    expect(reply.status).toBe(204);
    expect(reply.body).toBe("");
    expect((await searchScores(h, { traceId })).body.scores).toEqual([kept]);
    await expectError(
      await h.request("DELETE", `/projects/${h.projectId}/scores/${gone.id}`),
      404,
      "RESOURCE_NOT_FOUND",
    );
  });

  it("404 for a score of another project, or none; an ingest-only key gets 403", async () => {
    const h = use();
    const { traceId } = await scoredTrace(h);
    const [score] = await createScores(h, [{ traceId, name: "thumbs", value: true }]);
    const other = await newProject(h);
    await expectError(await h.request("DELETE", `/projects/${other}/scores/${score.id}`), 404, "RESOURCE_NOT_FOUND");
    await expectError(
      await h.request("DELETE", `/projects/${h.projectId}/scores/${missingId("score")}`),
      404,
      "RESOURCE_NOT_FOUND",
    );
    const ingest = await h.request("DELETE", `/projects/${h.projectId}/scores/${score.id}`, {
      key: await h.newKey("ingest-only"),
    });
    await expectError(ingest, 403, "FORBIDDEN");
    expect((await searchScores(h, { traceId })).body.scores).toEqual([score]);
  });
});
