import { expect, it } from "vitest";
import { addRows, createQaDataset, listRows, rowCount } from "../../testing/dataset-fixtures.ts";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";

describeEachStore("deleteDatasetRow", (use) => {
  it("deletes a row (204); rowCount drops by one; a second delete is 404", async () => {
    const h = use();
    const dataset = await createQaDataset(h);
    const rows = await addRows(h, dataset.id, [{ question: "1" }, { question: "2" }]);
    const before = (await h.request("GET", `/datasets/${dataset.id}`)).body;
    const deleted = await h.request("DELETE", `/datasets/${dataset.id}/rows/${rows[0].id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBe("");
    const after = (await h.request("GET", `/datasets/${dataset.id}`)).body;
    expect(after.rowCount).toBe(1);
    expect(after.updatedAt).toBeGreaterThan(before.updatedAt);
    expect(await listRows(h, dataset.id)).toEqual([rows[1]]);
    await expectError(
      await h.request("DELETE", `/datasets/${dataset.id}/rows/${rows[0].id}`),
      404,
      "RESOURCE_NOT_FOUND",
    );
    expect(await rowCount(h, dataset.id)).toBe(1);
  });

  it("answers 404 for a row of another dataset, and leaves that dataset's row and both rowCounts as they were", async () => {
    const h = use();
    const dataset = await createQaDataset(h);
    const other = await createQaDataset(h);
    const [foreign] = await addRows(h, other.id, [{ question: "theirs" }]);
    await expectError(
      await h.request("DELETE", `/datasets/${dataset.id}/rows/${foreign.id}`),
      404,
      "RESOURCE_NOT_FOUND",
    );
    expect(await listRows(h, other.id)).toEqual([foreign]);
    expect(await rowCount(h, other.id)).toBe(1);
    expect(await rowCount(h, dataset.id)).toBe(0);
  });
});
