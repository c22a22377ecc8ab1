import { expect, it } from "vitest";
import { createDataset, otherProject } from "../../testing/dataset-fixtures.ts";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";

describeEachStore("listDatasets", (use) => {
  it("lists the project's datasets without columns, newest first, with cursors, sort and created range", async () => {
    const h = use();
    const projectId = await otherProject(h);
    const ids: string[] = [];
    for (const title of ["d1", "d2", "d3"]) {
      ids.push((await createDataset(h, { projectId, title, columns: [{ name: "q", type: "static" }] })).id);
    }
    await createDataset(h, { title: "in the default project" });
    const first = await h.request("GET", `/datasets?projectId=${projectId}&limit=2`);
    expect(first.status).toBe(200);
    expect(first.body.pagination).toMatchObject({ limit: 2, returned: 2, hasMore: true });
    expect(first.body.datasets.map((d: { id: string }) => d.id)).toEqual([ids[2], ids[1]]);
    expect(first.body.datasets[0]).not.toHaveProperty("columns");
    expect(Object.keys(first.body.datasets[0]).sort()).toEqual(
      ["createdAt", "description", "icon", "id", "projectId", "rowCount", "title", "updatedAt"].sort(),
    );
    const second = await h.request(
      "GET",
      `/datasets?projectId=${projectId}&limit=2&cursor=${first.body.pagination.nextCursor}`,
    );
    expect(second.body.datasets.map((d: { id: string }) => d.id)).toEqual([ids[0]]);
    expect(second.body.pagination).toMatchObject({ hasMore: false, nextCursor: null });
    const asc = await h.request("GET", `/datasets?projectId=${projectId}&sort=createdAt:asc`);
    expect(asc.body.datasets.map((d: { id: string }) => d.id)).toEqual(ids);
    const last = asc.body.datasets[2].createdAt;
    const after = await h.request("GET", `/datasets?projectId=${projectId}&createdAfter=${last}`);
    expect(after.body.datasets.map((d: { id: string }) => d.id)).toEqual([ids[2]]);
    const before = await h.request("GET", `/datasets?projectId=${projectId}&createdBefore=${last - 1}`);
    expect(before.body.datasets.map((d: { id: string }) => d.id)).toEqual([ids[1], ids[0]]);
    // A cursor belongs to its query: another project or sort is INVALID_CURSOR.
    await expectError(
      await h.request("GET", `/datasets?projectId=${h.projectId}&limit=2&cursor=${first.body.pagination.nextCursor}`),
      400,
      "INVALID_CURSOR",
    );
    await expectError(await h.request("GET", `/datasets?projectId=${projectId}&cursor=garbage`), 400, "INVALID_CURSOR");
  });
});
