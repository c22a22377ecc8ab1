import { expect, it } from "vitest";
import { addRows, createQaDataset, createThreeColumns, listRows } from "../../testing/dataset-fixtures.ts";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";

describeEachStore("updateDatasetRow", (use) => {
  it("merges values (200): a value replaces its cell, null clears it, other cells keep theirs", async () => {
    const h = use();
    const dataset = await createThreeColumns(h);
    const [q, e, t] = dataset.columns.map((c: { id: string }) => c.id);
    const [row] = await addRows(h, dataset.id, [{ question: "Q", expected: "E", tier: 1 }]);
    const before = (await h.request("GET", `/datasets/${dataset.id}`)).body;
    const reply = await h.request("PATCH", `/datasets/${dataset.id}/rows/${row.id}`, {
      body: { values: { expected: "E2", tier: null } },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      id: row.id,
      values: { [q]: "Q", [e]: "E2", [t]: null },
      createdAt: row.createdAt,
      updatedAt: expect.any(Number),
    });
    expect(reply.body.updatedAt).toBeGreaterThan(row.updatedAt);
    expect(await listRows(h, dataset.id)).toEqual([reply.body]);
    const after = (await h.request("GET", `/datasets/${dataset.id}`)).body;
    expect(after.updatedAt).toBeGreaterThan(before.updatedAt);
    expect(after.rowCount).toBe(1);

    const byId = await h.request("PATCH", `/datasets/${dataset.id}/rows/${row.id}?valuesBy=columnId`, {
      body: { values: { [t]: false, [q]: null } },
    });
    expect(byId.body.values).toEqual({ [q]: null, [e]: "E2", [t]: false });
  });

  it("rejects empty values and unknown keys (400, naming the key) and leaves the row as it was", async () => {
    const h = use();
    const dataset = await createQaDataset(h);
    const [row] = await addRows(h, dataset.id, [{ question: "Q" }]);
    const path = `/datasets/${dataset.id}/rows/${row.id}`;
    await expectError(await h.request("PATCH", path, { body: { values: {} } }), 400, "VALIDATION_ERROR");
    const unknown = await h.request("PATCH", path, { body: { values: { question: "new", answr: "x" } } });
    await expectError(unknown, 400, "VALIDATION_ERROR");
    expect(unknown.body.error.details).toEqual([{ field: "values.answr", issue: expect.stringContaining("answr") }]);
    const byName = await h.request("PATCH", `${path}?valuesBy=columnId`, { body: { values: { question: "new" } } });
    await expectError(byName, 400, "VALIDATION_ERROR");
    expect(byName.body.error.details[0].field).toBe("values.question");
    await expectError(
      await h.request("PATCH", path, { body: { values: { question: "x".repeat(100_001) } } }),
      400,
      "VALIDATION_ERROR",
    );
    const wide = await h.request("PATCH", path, {
      body: { values: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, 1])) },
    });
    await expectError(wide, 400, "VALIDATION_ERROR");
    expect(wide.body.error.details).toEqual([{ field: "values", issue: expect.stringContaining("at most 100 keys") }]);
    expect(await listRows(h, dataset.id)).toEqual([row]);
  });

  it("answers 404 for a row of another dataset or an unknown row, and leaves the other dataset's row as it was", async () => {
    const h = use();
    const dataset = await createQaDataset(h);
    const other = await createQaDataset(h);
    const [foreign] = await addRows(h, other.id, [{ question: "theirs" }]);
    const path = `/datasets/${dataset.id}/rows/${foreign.id}`;
    await expectError(
      await h.request("PATCH", path, { body: { values: { question: "x" } } }),
      404,
      "RESOURCE_NOT_FOUND",
    );
    expect(await listRows(h, other.id)).toEqual([foreign]);
    await expectError(
      await h.request("PATCH", `/datasets/${dataset.id}/rows/row_${"0".repeat(26)}`, {
        body: { values: { question: "x" } },
      }),
      404,
      "RESOURCE_NOT_FOUND",
    );
  });
});
