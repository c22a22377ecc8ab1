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

describeEachStore("createDatasetColumns", (use) => {
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
  });
});
