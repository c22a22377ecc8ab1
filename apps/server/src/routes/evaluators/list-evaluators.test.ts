import { expect, it } from "vitest";
import { createEvaluator, fixture, RUBRIC } from "../../testing/evaluator-fixtures.ts";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";

describeEachStore("listEvaluators", (use) => {
  it("lists evaluators without config, filters by status, and pages", async () => {
    const h = use();
    const { promptId, datasetId } = await fixture(h);
    const ids: string[] = [];
    for (const title of ["a", "b", "c"]) {
      ids.push((await createEvaluator(h, promptId, { datasetId, title, config: RUBRIC })).body.id);
    }
    await h.request("PATCH", `/prompts/${promptId}/evaluators/${ids[0]}`, { body: { status: "archived" } });
    const page = await h.request("GET", `/prompts/${promptId}/evaluators?limit=2`);
    expect(page.status).toBe(200);
    expect(page.body.evaluators.map((e: { title: string }) => e.title)).toEqual(["c", "b"]);
    expect(page.body.evaluators[0].config).toBeUndefined();
    const next = await h.request(
      "GET",
      `/prompts/${promptId}/evaluators?limit=2&cursor=${page.body.pagination.nextCursor}`,
    );
    expect(next.body.evaluators.map((e: { title: string }) => e.title)).toEqual(["a"]);
    const active = await h.request("GET", `/prompts/${promptId}/evaluators?status=active&sort=createdAt:asc`);
    expect(active.body.evaluators.map((e: { id: string }) => e.id)).toEqual(ids.slice(1));
    await expectError(
      await h.request("GET", `/prompts/${promptId}/evaluators?status=active&cursor=${page.body.pagination.nextCursor}`),
      400,
      "INVALID_CURSOR",
    );
  });
});
