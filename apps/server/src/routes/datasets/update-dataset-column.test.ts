import { expect, it } from "vitest";
import {
  addRows,
  createDataset,
  createQaDataset,
  insertPrompt,
  listRows,
  otherProject,
} from "../../testing/dataset-fixtures.ts";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";

describeEachStore("updateDatasetColumn", (use) => {
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
    expect((await h.request("GET", `/datasets/${dataset.id}`)).body.columns).toEqual(dataset.columns);
    expect((await h.request("GET", `/datasets/${other.id}`)).body.columns).toEqual(other.columns);
  });
});
