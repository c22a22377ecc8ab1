import { expect, it } from "vitest";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";
import { createPrompt, newProject } from "../../testing/prompt-fixtures.ts";

describeEachStore("listPrompts", (use) => {
  it("lists a project's prompts as summaries, newest first, with cursor pagination, sort and created range", async () => {
    const h = use();
    const project = await newProject(h);
    const ids: string[] = [];
    for (const title of ["a", "b", "c"]) ids.push((await createPrompt(h, { projectId: project, title })).id);
    await createPrompt(h, { title: "elsewhere" });

    const first = await h.request("GET", `/prompts?projectId=${project}&limit=2`);
    expect(first.status).toBe(200);
    expect(first.body.pagination).toMatchObject({ limit: 2, returned: 2, hasMore: true });
    expect(first.body.prompts.map((p: { title: string }) => p.title)).toEqual(["c", "b"]);
    expect(Object.keys(first.body.prompts[0]).sort()).toEqual(
      ["createdAt", "icon", "id", "projectId", "title", "updatedAt"].sort(),
    );
    const second = await h.request(
      "GET",
      `/prompts?projectId=${project}&limit=2&cursor=${first.body.pagination.nextCursor}`,
    );
    expect(second.body.prompts.map((p: { id: string }) => p.id)).toEqual([ids[0]]);
    expect(second.body.pagination).toMatchObject({ returned: 1, hasMore: false, nextCursor: null });

    const asc = await h.request("GET", `/prompts?projectId=${project}&sort=createdAt:asc`);
    expect(asc.body.prompts.map((p: { id: string }) => p.id)).toEqual(ids);
    const middle = asc.body.prompts[1].createdAt;
    const range = await h.request(
      "GET",
      `/prompts?projectId=${project}&createdAfter=${middle}&createdBefore=${middle}`,
    );
    expect(range.body.prompts.map((p: { id: string }) => p.id)).toEqual([ids[1]]);
  });

  it("rejects a cursor of another project's list with 400 INVALID_CURSOR", async () => {
    const h = use();
    const project = await newProject(h);
    await createPrompt(h, { projectId: project });
    await createPrompt(h, { projectId: project });
    const page = await h.request("GET", `/prompts?projectId=${project}&limit=1`);
    await expectError(
      await h.request("GET", `/prompts?projectId=${h.projectId}&limit=1&cursor=${page.body.pagination.nextCursor}`),
      400,
      "INVALID_CURSOR",
    );
    await expectError(await h.request("GET", `/prompts?projectId=${project}&cursor=nonsense`), 400, "INVALID_CURSOR");
  });
});
