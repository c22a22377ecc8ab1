import { expect, it } from "vitest";
import { addRows, createQaDataset, listRows } from "../../testing/dataset-fixtures.ts";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";

describeEachStore("deleteDatasetColumn", (use) => {
  it("deletes a column (204) and its cell in every row; rows and rowCount stay", async () => {
    const h = use();
    const dataset = await createQaDataset(h);
    const [question, expected] = dataset.columns;
    const [, , third] = await addRows(h, dataset.id, [
      { question: "q1", expected: "a1" },
      { question: "q2" },
      { question: "q3", expected: "xy" },
    ]);
    // A cell holding U+0000, as versions that took it stored it (PostgreSQL's JSON types cannot read it).
    await h.store.db
      .updateTable("datasetRows")
      .set({ values: JSON.stringify({ [question.id]: "q3", [expected.id]: "x\u0000y" }) })
      .where("id", "=", third.id)
      .execute();
    const deleted = await h.request("DELETE", `/datasets/${dataset.id}/columns/${expected.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBe("");
    const read = (await h.request("GET", `/datasets/${dataset.id}`)).body;
    expect(read.columns).toEqual([question]);
    expect(read.rowCount).toBe(3);
    expect(read.updatedAt).toBeGreaterThan(dataset.updatedAt);
    const rows = await listRows(h, dataset.id);
    expect(rows.map((r: { values: unknown }) => r.values)).toEqual([
      { [question.id]: "q1" },
      { [question.id]: "q2" },
      { [question.id]: "q3" },
    ]);
    const stored = await h.store.db
      .selectFrom("datasetRows")
      .select("values")
      .where("datasetId", "=", dataset.id)
      .execute();
    for (const { values } of stored) expect(Object.keys(JSON.parse(values))).toEqual([question.id]);
    // A new column of the same name starts empty.
    const again = await h.request("POST", `/datasets/${dataset.id}/columns`, {
      body: { columns: [{ name: "expected", type: "static" }] },
    });
    const [first] = await listRows(h, dataset.id);
    expect(first.values).toEqual({ [question.id]: "q1", [again.body.columns[0].id]: null });
  });

  it("answers 404 for a column of another dataset or one already deleted", async () => {
    const h = use();
    const dataset = await createQaDataset(h);
    const other = await createQaDataset(h);
    const path = (id: string) => `/datasets/${dataset.id}/columns/${id}`;
    await expectError(await h.request("DELETE", path(other.columns[0].id)), 404, "RESOURCE_NOT_FOUND");
    expect((await h.request("GET", `/datasets/${other.id}`)).body.columns).toHaveLength(2);
    expect((await h.request("DELETE", path(dataset.columns[0].id))).status).toBe(204);
    await expectError(await h.request("DELETE", path(dataset.columns[0].id)), 404, "RESOURCE_NOT_FOUND");
  });
});
