import { expect, it } from "vitest";
import type { Harness } from "../../testing/harness.ts";
import { describeEachStore } from "../../testing/harness.ts";
import {
  expectError,
  itHidesOtherWorkspaces,
  itRejectsMalformedJson,
  itRejectsMissingAndInvalidKeys,
} from "../../testing/shared-cases.ts";
import { addRows, createDataset, createQaDataset, insertPrompt, otherProject } from "./dataset-fixtures.ts";

const listRows = async (h: Harness, datasetId: string) =>
  (await h.request("GET", `/datasets/${datasetId}/rows?sort=createdAt:asc&limit=200`)).body.rows;

describeEachStore("dataset columns: create", (use) => {
  it("appends columns (201) in request order; existing rows read null in them; updatedAt moves", async () => {
    const h = use();
    const dataset = await createQaDataset(h);
    const [row] = await addRows(h, dataset.id, [{ question: "q1", expected: "a1" }]);
    const before = (await h.request("GET", `/datasets/${dataset.id}`)).body;
    const promptId = await insertPrompt(h);
    const created = await h.request("POST", `/datasets/${dataset.id}/columns`, {
      body: {
        columns: [
          { name: "tier", type: "api", settings: { method: "POST", url: "https://crm/{{question}}", body: "{}" } },
          { name: "draft", type: "prompt", settings: { promptId } },
          { name: "note", type: "static" },
        ],
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.columns).toEqual([
      {
        id: expect.stringMatching(/^column_/),
        name: "tier",
        type: "api",
        settings: { method: "POST", url: "https://crm/{{question}}", headers: {}, body: "{}" },
        createdAt: expect.any(Number),
        updatedAt: expect.any(Number),
      },
      expect.objectContaining({ name: "draft", type: "prompt", settings: { promptId } }),
      expect.objectContaining({ name: "note", type: "static", settings: {} }),
    ]);
    const after = (await h.request("GET", `/datasets/${dataset.id}`)).body;
    expect(after.columns).toEqual([...dataset.columns, ...created.body.columns]);
    expect(after.updatedAt).toBeGreaterThan(before.updatedAt);
    const [read] = await listRows(h, dataset.id);
    const [question, expected] = dataset.columns;
    expect(read.values).toEqual({
      [question.id]: "q1",
      [expected.id]: "a1",
      ...Object.fromEntries(created.body.columns.map((c: { id: string }) => [c.id, null])),
    });
    expect(read.updatedAt).toBe(row.updatedAt);
  });

  it("refuses a name used in the dataset (409) and a name repeated in the request (400), adding none", async () => {
    const h = use();
    const dataset = await createQaDataset(h);
    const path = `/datasets/${dataset.id}/columns`;
    await expectError(
      await h.request("POST", path, {
        body: {
          columns: [
            { name: "extra", type: "static" },
            { name: "question", type: "static" },
          ],
        },
      }),
      409,
      "CONFLICT",
    );
    const repeated = await h.request("POST", path, {
      body: {
        columns: [
          { name: "x", type: "static" },
          { name: "x", type: "static" },
        ],
      },
    });
    await expectError(repeated, 400, "VALIDATION_ERROR");
    expect(repeated.body.error.details[0].field).toBe("columns.1.name");
    expect((await h.request("GET", `/datasets/${dataset.id}`)).body.columns).toEqual(dataset.columns);
    // Case-sensitive: "Question" is another name.
    expect((await h.request("POST", path, { body: { columns: [{ name: "Question", type: "static" }] } })).status).toBe(
      201,
    );
  });

  it("holds at most 100 columns (400 beyond) and takes 1 to 100 per request", async () => {
    const h = use();
    const columns = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) => ({ name: `c${from + i}`, type: "static" }));
    const dataset = await createDataset(h, { columns: columns(0, 99) });
    const path = `/datasets/${dataset.id}/columns`;
    const over = await h.request("POST", path, { body: { columns: columns(99, 2) } });
    await expectError(over, 400, "VALIDATION_ERROR");
    expect(over.body.error.details[0].field).toBe("columns");
    expect((await h.request("POST", path, { body: { columns: columns(99, 1) } })).status).toBe(201);
    await expectError(await h.request("POST", path, { body: { columns: columns(100, 1) } }), 400, "VALIDATION_ERROR");
    expect((await h.request("GET", `/datasets/${dataset.id}`)).body.columns).toHaveLength(100);

    const small = await createDataset(h);
    const smallPath = `/datasets/${small.id}/columns`;
    await expectError(await h.request("POST", smallPath, { body: { columns: [] } }), 400, "VALIDATION_ERROR");
    await expectError(
      await h.request("POST", smallPath, { body: { columns: columns(0, 101) } }),
      400,
      "VALIDATION_ERROR",
    );
    expect((await h.request("POST", smallPath, { body: { columns: columns(0, 100) } })).body.columns).toHaveLength(100);
  });

  it("requires the settings of prompt and api columns (400) and a prompt of the dataset's project (404)", async () => {
    const h = use();
    const dataset = await createQaDataset(h);
    const path = `/datasets/${dataset.id}/columns`;
    for (const column of [
      { name: "p", type: "prompt" },
      { name: "a", type: "api" },
      { name: "a", type: "api", settings: { method: "GET", url: "https://x", body: "b" } },
      { name: "a", type: "api", settings: { method: "GET", url: "crm.example.com" } },
      { name: "s", type: "static", settings: { method: "GET" } },
    ]) {
      await expectError(await h.request("POST", path, { body: { columns: [column] } }), 400, "VALIDATION_ERROR");
    }
    const elsewhere = await insertPrompt(h, await otherProject(h));
    const reply = await h.request("POST", path, {
      body: {
        columns: [
          { name: "ok", type: "static" },
          { name: "p", type: "prompt", settings: { promptId: elsewhere } },
        ],
      },
    });
    await expectError(reply, 404, "RESOURCE_NOT_FOUND");
    expect((await h.request("GET", `/datasets/${dataset.id}`)).body.columns).toEqual(dataset.columns);
    await expectError(
      await h.request("POST", `/datasets/dataset_${"0".repeat(26)}/columns`, {
        body: { columns: [{ name: "x", type: "static" }] },
      }),
      404,
      "RESOURCE_NOT_FOUND",
    );
  });

  itRejectsMalformedJson(use, {
    method: "POST",
    path: async (h) => `/datasets/${(await createDataset(h)).id}/columns`,
  });
  itRejectsMissingAndInvalidKeys(use, {
    method: "POST",
    path: async (h) => `/datasets/${(await createDataset(h)).id}/columns`,
    body: () => ({ columns: [{ name: "x", type: "static" }] }),
  });
  itHidesOtherWorkspaces(use, {
    method: "POST",
    path: async (h) => `/datasets/${(await createDataset(h)).id}/columns`,
    body: () => ({ columns: [{ name: "x", type: "static" }] }),
  });
});

describeEachStore("dataset columns: update", (use) => {
  it("renames a column (200), keeping its cells; updatedAt of column and dataset move", async () => {
    const h = use();
    const dataset = await createQaDataset(h);
    await addRows(h, dataset.id, [{ expected: "a1" }]);
    const [, expected] = dataset.columns;
    const reply = await h.request("PATCH", `/datasets/${dataset.id}/columns/${expected.id}`, {
      body: { name: "reference" },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ ...expected, name: "reference", updatedAt: expect.any(Number) });
    expect(reply.body.updatedAt).toBeGreaterThan(expected.updatedAt);
    const read = (await h.request("GET", `/datasets/${dataset.id}`)).body;
    expect(read.columns[1]).toEqual(reply.body);
    expect(read.updatedAt).toBeGreaterThan(dataset.updatedAt);
    const [row] = await listRows(h, dataset.id);
    expect(row.values[expected.id]).toBe("a1");
    // The new name is what valuesBy=columnName takes now.
    const added = await h.request("POST", `/datasets/${dataset.id}/rows`, {
      body: { rows: [{ values: { reference: "r" } }] },
    });
    expect(added.body.rows[0].values[expected.id]).toBe("r");
    // Renaming to its own name is no conflict.
    expect(
      (await h.request("PATCH", `/datasets/${dataset.id}/columns/${expected.id}`, { body: { name: "reference" } }))
        .status,
    ).toBe(200);
  });

  it("replaces settings of the column's own type, and refuses another type's settings (400)", async () => {
    const h = use();
    const [first, second] = [await insertPrompt(h), await insertPrompt(h)];
    const dataset = await createDataset(h, {
      columns: [
        { name: "s", type: "static" },
        { name: "p", type: "prompt", settings: { promptId: first } },
        { name: "a", type: "api", settings: { method: "GET", url: "https://a", headers: { A: "1" } } },
      ],
    });
    const [s, p, a] = dataset.columns;
    const patch = (column: { id: string }, body: unknown) =>
      h.request("PATCH", `/datasets/${dataset.id}/columns/${column.id}`, { body });

    const prompt = await patch(p, { settings: { promptId: second } });
    expect(prompt.body).toMatchObject({ type: "prompt", settings: { promptId: second } });
    const api = await patch(a, { settings: { method: "POST", url: "https://b", body: "x" } });
    expect(api.body).toMatchObject({
      type: "api",
      settings: { method: "POST", url: "https://b", headers: {}, body: "x" },
    });
    expect((await patch(s, { settings: {} })).status).toBe(200);

    for (const [column, settings] of [
      [s, { promptId: second }],
      [p, {}],
      [p, { method: "GET", url: "https://x" }],
      [a, {}],
      [a, { promptId: second }],
      [a, { method: "GET", url: "https://x", body: "x" }],
      [a, { method: "GET", url: "not a url" }],
      [a, { method: "GET" }],
    ] as const) {
      await expectError(await patch(column, { settings }), 400, "VALIDATION_ERROR");
    }
    await expectError(await patch(s, { type: "prompt" }), 400, "VALIDATION_ERROR");
    await expectError(await patch(s, {}), 400, "VALIDATION_ERROR");
    await expectError(await patch(s, { name: "a,b" }), 400, "VALIDATION_ERROR");
    const read = (await h.request("GET", `/datasets/${dataset.id}`)).body;
    expect(read.columns.map((c: { type: string }) => c.type)).toEqual(["static", "prompt", "api"]);
    expect(read.columns[2].settings).toEqual(api.body.settings);
  });

  it("answers 409 for a name of another column, 404 for a prompt outside the project or a foreign column", async () => {
    const h = use();
    const dataset = await createDataset(h, {
      columns: [
        { name: "q", type: "static" },
        { name: "p", type: "prompt", settings: { promptId: await insertPrompt(h) } },
      ],
    });
    const [q, p] = dataset.columns;
    const path = (id: string) => `/datasets/${dataset.id}/columns/${id}`;
    await expectError(await h.request("PATCH", path(q.id), { body: { name: "p" } }), 409, "CONFLICT");
    const elsewhere = await insertPrompt(h, await otherProject(h));
    await expectError(
      await h.request("PATCH", path(p.id), { body: { settings: { promptId: elsewhere } } }),
      404,
      "RESOURCE_NOT_FOUND",
    );
    const other = await createQaDataset(h);
    await expectError(
      await h.request("PATCH", path(other.columns[0].id), { body: { name: "x" } }),
      404,
      "RESOURCE_NOT_FOUND",
    );
    await expectError(
      await h.request("PATCH", path(`column_${"0".repeat(26)}`), { body: { name: "x" } }),
      404,
      "RESOURCE_NOT_FOUND",
    );
    expect((await h.request("GET", `/datasets/${dataset.id}`)).body.columns).toEqual(dataset.columns);
    expect((await h.request("GET", `/datasets/${other.id}`)).body.columns).toEqual(other.columns);
  });

  itRejectsMalformedJson(use, {
    method: "PATCH",
    path: async (h) => {
      const dataset = await createQaDataset(h);
      return `/datasets/${dataset.id}/columns/${dataset.columns[0].id}`;
    },
  });
  itHidesOtherWorkspaces(use, {
    method: "PATCH",
    path: async (h) => {
      const dataset = await createQaDataset(h);
      return `/datasets/${dataset.id}/columns/${dataset.columns[0].id}`;
    },
    body: () => ({ name: "x" }),
  });
});

describeEachStore("dataset columns: delete", (use) => {
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
    await expectError(await h.request("DELETE", path("column_short")), 400, "VALIDATION_ERROR");
  });

  itRejectsMissingAndInvalidKeys(use, {
    method: "DELETE",
    path: async (h) => {
      const dataset = await createQaDataset(h);
      return `/datasets/${dataset.id}/columns/${dataset.columns[0].id}`;
    },
  });
  itHidesOtherWorkspaces(use, {
    method: "DELETE",
    path: async (h) => {
      const dataset = await createQaDataset(h);
      return `/datasets/${dataset.id}/columns/${dataset.columns[0].id}`;
    },
  });
});
