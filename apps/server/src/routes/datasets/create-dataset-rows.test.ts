import { expect, it } from "vitest";
import { addRows, createQaDataset, createThreeColumns, listRows, rowCount } from "../../testing/dataset-fixtures.ts";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";

describeEachStore("createDatasetRows", (use) => {
  it("adds rows (201) keyed by column name, answering cells keyed by column id with every column present", async () => {
    const h = use();
    const dataset = await createThreeColumns(h);
    const [q, e, t] = dataset.columns.map((c: { id: string }) => c.id);
    const reply = await h.request("POST", `/datasets/${dataset.id}/rows`, {
      body: {
        rows: [
          { values: { question: "How?", expected: "Like this", tier: 3 } },
          { values: { question: "Why?", tier: true } },
          { values: {} },
          { values: { expected: null, tier: 2.5 } },
        ],
      },
    });
    expect(reply.status).toBe(201);
    const rows = reply.body.rows;
    expect(rows.map((r: { values: unknown }) => r.values)).toEqual([
      { [q]: "How?", [e]: "Like this", [t]: 3 },
      { [q]: "Why?", [e]: null, [t]: true },
      { [q]: null, [e]: null, [t]: null },
      { [q]: null, [e]: null, [t]: 2.5 },
    ]);
    for (const row of rows) {
      expect(row.id).toMatch(/^row_[0-9A-Z]{26}$/);
      expect(row).toMatchObject({ createdAt: rows[0].createdAt, updatedAt: rows[0].createdAt });
    }
    const ids = rows.map((r: { id: string }) => r.id);
    expect([...ids].sort()).toEqual(ids);
    expect(await listRows(h, dataset.id)).toEqual(rows);
    const read = (await h.request("GET", `/datasets/${dataset.id}`)).body;
    expect(read.rowCount).toBe(4);
    expect(read.updatedAt).toBeGreaterThan(dataset.updatedAt);
    // Cells come back exactly as written.
    const [special] = await addRows(h, dataset.id, [{ question: "", expected: 0, tier: false }]);
    expect(special.values).toEqual({ [q]: "", [e]: 0, [t]: false });
  });

  it("takes column ids with valuesBy=columnId, and refuses names there (400)", async () => {
    const h = use();
    const dataset = await createQaDataset(h);
    const [q, e] = dataset.columns.map((c: { id: string }) => c.id);
    const [row] = await addRows(h, dataset.id, [{ [q]: "by id", [e]: "yes" }], "?valuesBy=columnId");
    expect(row.values).toEqual({ [q]: "by id", [e]: "yes" });
    const byName = await h.request("POST", `/datasets/${dataset.id}/rows?valuesBy=columnId`, {
      body: { rows: [{ values: { question: "x" } }] },
    });
    await expectError(byName, 400, "VALIDATION_ERROR");
    expect(byName.body.error.details[0].field).toBe("rows.0.values.question");
    const byIdAsName = await h.request("POST", `/datasets/${dataset.id}/rows?valuesBy=columnName`, {
      body: { rows: [{ values: { [q]: "x" } }] },
    });
    await expectError(byIdAsName, 400, "VALIDATION_ERROR");
    expect(await rowCount(h, dataset.id)).toBe(1);
  });

  it("names each unknown key in the error (rows.2.values.answr) and stores nothing", async () => {
    const h = use();
    const dataset = await createQaDataset(h);
    const reply = await h.request("POST", `/datasets/${dataset.id}/rows`, {
      body: {
        rows: [
          { values: { question: "a" } },
          { values: { question: "b" } },
          { values: { question: "c", answr: "typo" } },
          { values: { Question: "d" } },
        ],
      },
    });
    await expectError(reply, 400, "VALIDATION_ERROR");
    expect(reply.body.error.details.map((d: { field: string }) => d.field)).toEqual([
      "rows.2.values.answr",
      "rows.3.values.Question",
    ]);
    expect(reply.body.error.message).toContain("answr");
    expect(await listRows(h, dataset.id)).toEqual([]);
    expect(await rowCount(h, dataset.id)).toBe(0);
  });

  it("writes all rows or none: a 5th row with an unknown key leaves no row stored and rowCount unchanged", async () => {
    const h = use();
    const dataset = await createQaDataset(h);
    const existing = await addRows(h, dataset.id, [{ question: "kept" }]);
    const before = (await h.request("GET", `/datasets/${dataset.id}`)).body;
    const rows = [1, 2, 3, 4].map((i) => ({ values: { question: `q${i}` } }));
    const reply = await h.request("POST", `/datasets/${dataset.id}/rows`, {
      body: { rows: [...rows, { values: { question: "q5", answr: "x" } }] },
    });
    await expectError(reply, 400, "VALIDATION_ERROR");
    expect(reply.body.error.details[0].field).toBe("rows.4.values.answr");
    expect(await listRows(h, dataset.id)).toEqual(existing);
    expect((await h.request("GET", `/datasets/${dataset.id}`)).body).toEqual(before);
    const stored = await h.store.db
      .selectFrom("datasetRows")
      .select("id")
      .where("datasetId", "=", dataset.id)
      .execute();
    expect(stored).toHaveLength(1);
  });

  it("takes 1 to 100 rows (0 or 101 → 400) and enforces cell and map limits (400)", async () => {
    const h = use();
    const dataset = await createQaDataset(h);
    const path = `/datasets/${dataset.id}/rows`;
    const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ values: { question: `q${i}` } }));
    await expectError(await h.request("POST", path, { body: { rows: [] } }), 400, "VALIDATION_ERROR");
    await expectError(await h.request("POST", path, { body: { rows: rows(101) } }), 400, "VALIDATION_ERROR");
    expect(await rowCount(h, dataset.id)).toBe(0);
    const hundred = await h.request("POST", path, { body: { rows: rows(100) } });
    expect(hundred.body.rows.map((r: { values: Record<string, string> }) => r.values[dataset.columns[0].id])).toEqual(
      rows(100).map((r) => r.values.question),
    );
    expect(await rowCount(h, dataset.id)).toBe(100);

    const bad = async (values: unknown) => {
      const reply = await h.request("POST", path, { body: { rows: [{ values }] } });
      await expectError(reply, 400, "VALIDATION_ERROR");
      return reply;
    };
    const long = await bad({ question: "x".repeat(100_001) });
    expect(long.body.error.details[0].field).toBe("rows.0.values.question");
    await bad({ question: { modality: "text", value: "x" } });
    await bad({ question: ["x"] });
    const wide = await bad(Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, 1])));
    expect(wide.body.error.details).toEqual([
      { field: "rows.0.values", issue: expect.stringContaining("at most 100 keys") },
    ]);
    await bad({ "": 1 });
    expect(await rowCount(h, dataset.id)).toBe(100);
    const [max] = await addRows(h, dataset.id, [{ question: "x".repeat(100_000) }]);
    expect(max.values[dataset.columns[0].id]).toHaveLength(100_000);
  });

  it("keeps rowCount exact across adds and deletes", async () => {
    const h = use();
    const dataset = await createQaDataset(h);
    const added = await addRows(h, dataset.id, [{}, {}, {}]);
    await addRows(h, dataset.id, [{}, {}]);
    expect(await rowCount(h, dataset.id)).toBe(5);
    await h.request("DELETE", `/datasets/${dataset.id}/rows/${added[1].id}`);
    await h.request("DELETE", `/datasets/${dataset.id}/rows/${added[1].id}`);
    expect(await rowCount(h, dataset.id)).toBe(4);
    const listed = await h.request("GET", `/datasets?projectId=${h.projectId}&limit=200`);
    expect(listed.body.datasets.find((d: { id: string }) => d.id === dataset.id).rowCount).toBe(4);
    expect(await listRows(h, dataset.id)).toHaveLength(4);
  });
});
