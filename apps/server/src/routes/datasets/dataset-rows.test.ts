import { expect, it } from "vitest";
import type { Harness } from "../../testing/harness.ts";
import { describeEachStore } from "../../testing/harness.ts";
import {
  expectError,
  itHidesOtherWorkspaces,
  itRejectsMalformedJson,
  itRejectsMissingAndInvalidKeys,
} from "../../testing/shared-cases.ts";
import { addRows, createDataset, createQaDataset } from "./dataset-fixtures.ts";

const rowCount = async (h: Harness, datasetId: string) =>
  (await h.request("GET", `/datasets/${datasetId}`)).body.rowCount;
const listRows = async (h: Harness, datasetId: string, query = "") =>
  (await h.request("GET", `/datasets/${datasetId}/rows?sort=createdAt:asc&limit=200${query}`)).body.rows;

/** A dataset with columns question, expected, tier. */
const createThreeColumns = (h: Harness) =>
  createDataset(h, {
    columns: [
      { name: "question", type: "static" },
      { name: "expected", type: "static" },
      { name: "tier", type: "static" },
    ],
  });

describeEachStore("dataset rows: create", (use) => {
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
    await expectError(
      await h.request("POST", `/datasets/${dataset.id}/rows?valuesBy=columnTitle`, {
        body: { rows: [{ values: {} }] },
      }),
      400,
      "VALIDATION_ERROR",
    );
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
    await expectError(await h.request("POST", path, { body: { rows: [{}] } }), 400, "VALIDATION_ERROR");
    await expectError(
      await h.request("POST", path, { body: { rows: [{ values: {}, id: "x" }] } }),
      400,
      "VALIDATION_ERROR",
    );
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

  itRejectsMalformedJson(use, { method: "POST", path: async (h) => `/datasets/${(await createQaDataset(h)).id}/rows` });
  itRejectsMissingAndInvalidKeys(use, {
    method: "POST",
    path: async (h) => `/datasets/${(await createQaDataset(h)).id}/rows`,
    body: () => ({ rows: [{ values: {} }] }),
  });
  itHidesOtherWorkspaces(use, {
    method: "POST",
    path: async (h) => `/datasets/${(await createQaDataset(h)).id}/rows`,
    body: () => ({ rows: [{ values: {} }] }),
  });
});

describeEachStore("dataset rows: list", (use) => {
  it("pages rows in the order they were added (createdAt:asc), newest first by default", async () => {
    const h = use();
    const dataset = await createQaDataset(h);
    const first = await addRows(h, dataset.id, [{ question: "1" }, { question: "2" }, { question: "3" }]);
    const second = await addRows(h, dataset.id, [{ question: "4" }, { question: "5" }]);
    const all = [...first, ...second].map((r: { id: string }) => r.id);
    const path = `/datasets/${dataset.id}/rows`;
    const page1 = await h.request("GET", `${path}?sort=createdAt:asc&limit=2`);
    expect(page1.status).toBe(200);
    expect(page1.body.pagination).toMatchObject({ limit: 2, returned: 2, hasMore: true });
    const ids: string[] = page1.body.rows.map((r: { id: string }) => r.id);
    let cursor = page1.body.pagination.nextCursor;
    while (cursor) {
      const page = await h.request("GET", `${path}?sort=createdAt:asc&limit=2&cursor=${cursor}`);
      ids.push(...page.body.rows.map((r: { id: string }) => r.id));
      cursor = page.body.pagination.nextCursor;
    }
    expect(ids).toEqual(all);
    const desc = await h.request("GET", path);
    expect(desc.body.rows.map((r: { id: string }) => r.id)).toEqual([...all].reverse());
    expect(desc.body.pagination).toEqual({ limit: 50, returned: 5, hasMore: false, nextCursor: null });
    const after = await h.request("GET", `${path}?sort=createdAt:asc&createdAfter=${second[0].createdAt}`);
    expect(after.body.rows.map((r: { id: string }) => r.id)).toEqual(all.slice(3));
    const before = await h.request("GET", `${path}?sort=createdAt:asc&createdBefore=${first[0].createdAt}`);
    expect(before.body.rows.map((r: { id: string }) => r.id)).toEqual(all.slice(0, 3));
  });

  it("narrows the cells with `columns` (ids or names), refusing an unknown one by name (400)", async () => {
    const h = use();
    const dataset = await createThreeColumns(h);
    const [q, e, t] = dataset.columns.map((c: { id: string }) => c.id);
    await addRows(h, dataset.id, [{ question: "Q", expected: "E", tier: 1 }]);
    const path = `/datasets/${dataset.id}/rows`;
    const [byName] = (await h.request("GET", `${path}?columns=tier,question`)).body.rows;
    expect(byName.values).toEqual({ [t]: 1, [q]: "Q" });
    expect(Object.keys(byName.values)).toEqual([t, q]);
    const [byId] = (await h.request("GET", `${path}?columns=${e}`)).body.rows;
    expect(byId.values).toEqual({ [e]: "E" });
    const [mixed] = (await h.request("GET", `${path}?columns=${e},expected,tier`)).body.rows;
    expect(mixed.values).toEqual({ [e]: "E", [t]: 1 });

    const unknown = await h.request("GET", `${path}?columns=question,answr`);
    await expectError(unknown, 400, "VALIDATION_ERROR");
    expect(unknown.body.error.details[0]).toMatchObject({ field: "query.columns" });
    expect(unknown.body.error.details[0].issue).toContain("answr");
    await expectError(await h.request("GET", `${path}?columns=`), 400, "VALIDATION_ERROR");
    await expectError(await h.request("GET", `${path}?columns=question,`), 400, "VALIDATION_ERROR");
    const many = Array.from({ length: 101 }, () => "question").join(",");
    await expectError(await h.request("GET", `${path}?columns=${many}`), 400, "VALIDATION_ERROR");
  });

  it("binds a cursor to its query: another `columns` or sort is INVALID_CURSOR", async () => {
    const h = use();
    const dataset = await createQaDataset(h);
    await addRows(h, dataset.id, [{}, {}, {}]);
    const path = `/datasets/${dataset.id}/rows`;
    const page = await h.request("GET", `${path}?limit=1&columns=question`);
    const cursor = page.body.pagination.nextCursor;
    expect((await h.request("GET", `${path}?limit=1&columns=question&cursor=${cursor}`)).status).toBe(200);
    await expectError(await h.request("GET", `${path}?limit=1&cursor=${cursor}`), 400, "INVALID_CURSOR");
    await expectError(
      await h.request("GET", `${path}?limit=1&columns=question&sort=createdAt:asc&cursor=${cursor}`),
      400,
      "INVALID_CURSOR",
    );
    const other = await createQaDataset(h);
    await expectError(
      await h.request("GET", `/datasets/${other.id}/rows?limit=1&columns=question&cursor=${cursor}`),
      400,
      "INVALID_CURSOR",
    );
    await expectError(await h.request("GET", `${path}?limit=201`), 400, "VALIDATION_ERROR");
    await expectError(await h.request("GET", `/datasets/dataset_${"0".repeat(26)}/rows`), 404, "RESOURCE_NOT_FOUND");
  });

  itRejectsMissingAndInvalidKeys(use, {
    method: "GET",
    path: async (h) => `/datasets/${(await createQaDataset(h)).id}/rows`,
  });
  itHidesOtherWorkspaces(use, { method: "GET", path: async (h) => `/datasets/${(await createQaDataset(h)).id}/rows` });
});

describeEachStore("dataset rows: update and delete", (use) => {
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
    await expectError(await h.request("PATCH", path, { body: {} }), 400, "VALIDATION_ERROR");
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

  it("answers 404 for a row of another dataset or an unknown row", async () => {
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
    await expectError(await h.request("DELETE", path), 404, "RESOURCE_NOT_FOUND");
    expect(await listRows(h, other.id)).toEqual([foreign]);
    expect(await rowCount(h, other.id)).toBe(1);
    expect(await rowCount(h, dataset.id)).toBe(0);
    await expectError(
      await h.request("PATCH", `/datasets/${dataset.id}/rows/row_${"0".repeat(26)}`, {
        body: { values: { question: "x" } },
      }),
      404,
      "RESOURCE_NOT_FOUND",
    );
  });

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

  const rowPath = async (h: Harness) => {
    const dataset = await createQaDataset(h);
    const [row] = await addRows(h, dataset.id, [{ question: "q" }]);
    return `/datasets/${dataset.id}/rows/${row.id}`;
  };
  itRejectsMalformedJson(use, { method: "PATCH", path: rowPath });
  itRejectsMissingAndInvalidKeys(use, { method: "DELETE", path: rowPath });
  itHidesOtherWorkspaces(use, { method: "PATCH", path: rowPath, body: () => ({ values: { question: "x" } }) });
  itHidesOtherWorkspaces(use, { method: "DELETE", path: rowPath });
});
