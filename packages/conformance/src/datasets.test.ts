/** Datasets, their columns and rows through the client, every response validated against the spec. */
import { type PharosClient, paginate, unwrap } from "@pharos/client";
import { beforeAll, describe, expect, it } from "vitest";
import { errorMatrixOf, itProvokedEveryDocumentedStatus, type Send } from "./cases.ts";
import { newDataset, newEvaluator, newProject, newPrompt, runTag, type Schemas, unknownId } from "./fixtures.ts";
import { expectError, expectStatus } from "./replies.ts";
import { useTarget } from "./target.ts";

type Dataset = Schemas["Dataset"];

const use = useTarget();
const itAnswersTheErrorMatrix = errorMatrixOf(use, () => projectId);
const run = runTag();

let projectId: string;
/** A dataset with static columns `question` and `expected`, and two rows. */
let dataset: Dataset;
let rows: Schemas["DatasetRow"][];
/** A prompt of the project, and one of another project of the workspace. */
let prompt: Schemas["Prompt"];
let foreignPrompt: Schemas["Prompt"];

const qaColumns = [
  { name: "question", type: "static" as const },
  { name: "expected", type: "static" as const },
];
const columnId = (d: Dataset, name: string) => {
  const column = d.columns.find((c) => c.name === name);
  if (!column) throw new Error(`no column ${name}`);
  return column.id;
};

beforeAll(async () => {
  const { client } = use();
  projectId = (await newProject(client, `Datasets ${run}`)).id;
  prompt = await newPrompt(client, projectId, { title: "Answerer" });
  foreignPrompt = await newPrompt(client, (await newProject(client, `Elsewhere ${run}`)).id, { title: "Foreign" });
  dataset = await newDataset(client, projectId, { title: `QA ${run}`, columns: qaColumns });
  rows = unwrap(
    await client.POST("/datasets/{datasetId}/rows", {
      params: { path: { datasetId: dataset.id } },
      body: { rows: [{ values: { question: "Q1", expected: "A1" } }, { values: { question: "Q2" } }] },
    }),
  ).rows;
});

const datasetPath = () => ({ datasetId: dataset.id });
const readDatasets = async (client: PharosClient) =>
  unwrap(await client.GET("/datasets", { params: { query: { projectId, limit: 200 } } }));

/** Reads a dataset and its rows: what a refused write must leave as it was. */
const snapshot = (datasetId: () => string) => async (client: PharosClient) => {
  const path = { datasetId: datasetId() };
  return {
    dataset: unwrap(await client.GET("/datasets/{datasetId}", { params: { path } })),
    rows: unwrap(await client.GET("/datasets/{datasetId}/rows", { params: { path, query: { limit: 200 } } })).rows,
  };
};

describe("listDatasets", () => {
  const send: Send = (client, extra, id = projectId) =>
    client.GET("/datasets", { params: { query: { projectId: id } }, ...extra });

  it("200: lists the project's datasets without columns and pages through them", async () => {
    const { client } = use();
    const listProject = (await newProject(client, `List ${run}`)).id;
    const made = [];
    for (const title of ["a", "b", "c"]) made.push((await newDataset(client, listProject, { title })).id);
    const page = await client.GET("/datasets", { params: { query: { projectId: listProject, limit: 2 } } });
    expectStatus(page, 200);
    expect(page.data?.datasets[0]).not.toHaveProperty("columns");
    const all = [];
    for await (const d of paginate(client, "GET", "/datasets", {
      params: { query: { projectId: listProject, limit: 2, sort: "createdAt:asc" } },
    })) {
      all.push(d.id);
    }
    expect(all).toEqual(made);
  });

  it("400 VALIDATION_ERROR without projectId (naming query.projectId) and for a page size of 0", async () => {
    const { client } = use();
    const missing = await client.GET("/datasets", { params: { query: {} } } as never);
    expectError(missing, 400, "VALIDATION_ERROR");
    expect(missing.error?.error.details?.[0]?.field).toBe("query.projectId");
    expectError(await client.GET("/datasets", { params: { query: { projectId, limit: 0 } } }), 400, "VALIDATION_ERROR");
  });

  itAnswersTheErrorMatrix({ access: "read", send, unknown: "project" });
});

describe("createDataset", () => {
  const send: Send = (client, extra) =>
    client.POST("/datasets", { body: { projectId, title: `Created ${run}` }, ...extra });
  const create = (fields: Record<string, unknown>) =>
    use().client.POST("/datasets", { body: { projectId, title: "T", ...fields } as never });

  it("201: creates a dataset with the defaults and no rows", async () => {
    const created = await send(use().client, {});
    expectStatus(created, 201);
    expect(created.data).toMatchObject({
      projectId,
      description: "",
      icon: { type: "emoji", value: "📊" },
      rowCount: 0,
      columns: [],
    });
  });

  it("201: creates the initial columns of all three types, in order", async () => {
    const created = await create({
      description: "Reference answers",
      columns: [
        { name: "question", type: "static" },
        { name: "answer", type: "prompt", settings: { promptId: prompt.id } },
        { name: "lookup", type: "api", settings: { method: "GET", url: "https://api.example.com/orders" } },
      ],
    });
    expectStatus(created, 201);
    expect((created.data as Dataset).columns.map((c) => [c.name, c.type])).toEqual([
      ["question", "static"],
      ["answer", "prompt"],
      ["lookup", "api"],
    ]);
  });

  it("400 VALIDATION_ERROR for a missing projectId, a bad title, description or icon, an unknown field, a column without its settings and repeated names", async () => {
    const cases = [
      { projectId: undefined },
      { icon: { type: "svg", value: "x" } },
      { extra: true },
      { title: "" },
      { title: "x".repeat(51) },
      { description: "x".repeat(101) },
      { columns: [{ name: "answer", type: "prompt" }] },
      { columns: [{ name: "lookup", type: "api", settings: { method: "GET" } }] },
      { columns: [{ name: "a,b", type: "static" }] },
      {
        columns: [
          { name: "q", type: "static" },
          { name: "q", type: "static" },
        ],
      },
    ];
    for (const fields of cases) expectError(await create(fields), 400, "VALIDATION_ERROR");
  });

  it("404 RESOURCE_NOT_FOUND for an unknown project and for a prompt column of another project's prompt", async () => {
    expectError(await create({ projectId: unknownId("project") }), 404, "RESOURCE_NOT_FOUND");
    const columns = [{ name: "answer", type: "prompt", settings: { promptId: foreignPrompt.id } }];
    expectError(await create({ columns }), 404, "RESOURCE_NOT_FOUND");
  });

  itAnswersTheErrorMatrix({ access: "write", send, body: true, unchanged: readDatasets });
});

describe("getDataset", () => {
  const send: Send = (client, extra, id = dataset.id) =>
    client.GET("/datasets/{datasetId}", { params: { path: { datasetId: id } }, ...extra });

  it("200: reads the dataset with its columns and an exact rowCount", async () => {
    const read = await send(use().client, {});
    expectStatus(read, 200);
    expect(read.data).toMatchObject({ id: dataset.id, rowCount: 2, columns: dataset.columns });
  });

  itAnswersTheErrorMatrix({ access: "read", send, unknown: "dataset" });
});

describe("updateDataset", () => {
  const send: Send = (client, extra, id = dataset.id) =>
    client.PATCH("/datasets/{datasetId}", {
      params: { path: { datasetId: id } },
      body: { title: `QA ${run}` },
      ...extra,
    });
  const update = (body: Record<string, unknown>, path = datasetPath()) =>
    use().client.PATCH("/datasets/{datasetId}", { params: { path }, body: body as never });

  it("200: changes the fields given and answers the dataset without columns", async () => {
    const updated = await update({ description: "Checked answers", icon: { type: "emoji", value: "✅" } });
    expectStatus(updated, 200);
    expect(updated.data).toMatchObject({ title: dataset.title, description: "Checked answers", rowCount: 2 });
    expect(updated.data).not.toHaveProperty("columns");
  });

  it("400 VALIDATION_ERROR for an empty update, a title of 0 or 51 characters, a description over 100 and fields it cannot change; the dataset is left as it was", async () => {
    const before = await snapshot(() => dataset.id)(use().client);
    const bodies = [
      {},
      { description: "x".repeat(101) },
      { title: "" },
      { title: "x".repeat(51) },
      { rowCount: 3 },
      { columns: [] },
    ];
    for (const body of bodies) expectError(await update(body), 400, "VALIDATION_ERROR");
    expect(await snapshot(() => dataset.id)(use().client)).toEqual(before);
  });

  const unchanged = snapshot(() => dataset.id);
  itAnswersTheErrorMatrix({ access: "write", send, unknown: "dataset", body: true, unchanged });
});

describe("deleteDataset", () => {
  let victim: Dataset;
  beforeAll(async () => {
    victim = await newDataset(use().client, projectId, { title: "Victim" });
  });
  const send: Send = (client, extra, id = victim.id) =>
    client.DELETE("/datasets/{datasetId}", { params: { path: { datasetId: id } }, ...extra });
  const remove = (datasetId: string) =>
    use().client.DELETE("/datasets/{datasetId}", { params: { path: { datasetId } } });

  it("204: deletes the dataset with its columns and rows", async () => {
    const doomed = await newDataset(use().client, projectId, { title: "Doomed", columns: qaColumns });
    expectStatus(await remove(doomed.id), 204);
    const read = await use().client.GET("/datasets/{datasetId}", { params: { path: { datasetId: doomed.id } } });
    expectError(read, 404, "RESOURCE_NOT_FOUND");
  });

  it("409 CONFLICT while an evaluator refers to the dataset", async () => {
    const { client } = use();
    const kept = await newDataset(client, projectId, { title: "Kept" });
    const evaluator = await newEvaluator(client, prompt, kept.id);
    expectError(await remove(kept.id), 409, "CONFLICT");
    unwrap(
      await client.DELETE("/prompts/{promptId}/evaluators/{evaluatorId}", {
        params: { path: { promptId: prompt.id, evaluatorId: evaluator.id } },
      }),
    );
    expectStatus(await remove(kept.id), 204);
  });

  itAnswersTheErrorMatrix({ access: "write", send, unknown: "dataset", unchanged: snapshot(() => victim.id) });
});

describe("createDatasetColumns", () => {
  let counter = 0;
  const send: Send = (client, extra) =>
    client.POST("/datasets/{datasetId}/columns", {
      params: { path: datasetPath() },
      body: { columns: [{ name: `extra-${++counter}`, type: "static" }] },
      ...extra,
    });
  const add = (columns: unknown[], path = datasetPath()) =>
    use().client.POST("/datasets/{datasetId}/columns", { params: { path }, body: { columns } as never });

  it("201: appends columns; existing rows get null cells in them", async () => {
    const { client } = use();
    const target = await newDataset(client, projectId, {
      title: "Growing",
      columns: [{ name: "question", type: "static" }],
    });
    unwrap(
      await client.POST("/datasets/{datasetId}/rows", {
        params: { path: { datasetId: target.id } },
        body: { rows: [{ values: { question: "Q" } }] },
      }),
    );
    const added = await add(
      [
        { name: "notes", type: "static" },
        { name: "answer", type: "prompt", settings: { promptId: prompt.id } },
      ],
      { datasetId: target.id },
    );
    expectStatus(added, 201);
    const created = (added.data as Schemas["CreateDatasetColumnsResponse"]).columns;
    expect(created.map((c) => c.name)).toEqual(["notes", "answer"]);
    const listed = unwrap(
      await client.GET("/datasets/{datasetId}/rows", { params: { path: { datasetId: target.id } } }),
    );
    for (const column of created) expect(listed.rows[0]?.values[column.id]).toBeNull();
  });

  it("400 VALIDATION_ERROR for no columns, missing settings and names repeated in the request", async () => {
    const cases = [
      [],
      [{ name: "answer", type: "prompt" }],
      [
        { name: "same", type: "static" },
        { name: "same", type: "static" },
      ],
    ];
    for (const columns of cases) expectError(await add(columns), 400, "VALIDATION_ERROR");
  });

  it("400 VALIDATION_ERROR when the dataset would have more than 100 columns", async () => {
    const { client } = use();
    const full = await newDataset(client, projectId, { title: "Wide" });
    const many = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => ({ name: `c${from + i}`, type: "static" }));
    expectStatus(await add(many(0, 100), { datasetId: full.id }), 201);
    expectError(await add(many(100, 1), { datasetId: full.id }), 400, "VALIDATION_ERROR");
  });

  it("404 RESOURCE_NOT_FOUND for an unknown dataset and a prompt of another project", async () => {
    expectError(
      await add([{ name: "x", type: "static" }], { datasetId: unknownId("dataset") }),
      404,
      "RESOURCE_NOT_FOUND",
    );
    const foreign = [{ name: "answer-f", type: "prompt", settings: { promptId: foreignPrompt.id } }];
    expectError(await add(foreign), 404, "RESOURCE_NOT_FOUND");
  });

  it("409 CONFLICT for a name the dataset already has", async () => {
    expectError(await add([{ name: "question", type: "static" }]), 409, "CONFLICT");
  });

  itAnswersTheErrorMatrix({ access: "write", send, body: true, unchanged: snapshot(() => dataset.id), project: false });
});

describe("updateDatasetColumn", () => {
  let target: Dataset;
  beforeAll(async () => {
    target = await newDataset(use().client, projectId, {
      title: "Columns",
      columns: [
        { name: "question", type: "static" },
        { name: "answer", type: "prompt", settings: { promptId: prompt.id } },
      ],
    });
  });
  const path = (name: string) => ({ datasetId: target.id, columnId: columnId(target, name) });
  const update = (p: { datasetId: string; columnId: string }, body: Record<string, unknown>) =>
    use().client.PATCH("/datasets/{datasetId}/columns/{columnId}", { params: { path: p }, body: body as never });
  const send: Send = (client, extra) =>
    client.PATCH("/datasets/{datasetId}/columns/{columnId}", {
      params: { path: path("question") },
      body: { name: "question" },
      ...extra,
    });

  it("200: renames a column and replaces its settings", async () => {
    const renamed = await update(path("question"), { name: "prompt text" });
    expectStatus(renamed, 200);
    expect(renamed.data).toMatchObject({ name: "prompt text", type: "static" });
    unwrap(await update(path("question"), { name: "question" }));
    const other = await newPrompt(use().client, projectId, { title: "Second answerer" });
    const resettled = await update(path("answer"), { settings: { promptId: other.id } });
    expectStatus(resettled, 200);
    expect(resettled.data).toMatchObject({ type: "prompt", settings: { promptId: other.id } });
  });

  it("400 VALIDATION_ERROR for an empty update and for settings of another type", async () => {
    for (const [name, body] of [
      ["question", {}],
      ["question", { settings: { promptId: prompt.id } }],
      ["answer", { settings: { method: "GET", url: "https://x.example" } }],
      ["question", { type: "prompt" }],
    ] as const) {
      expectError(await update(path(name), body), 400, "VALIDATION_ERROR");
    }
  });

  it("404 RESOURCE_NOT_FOUND for an unknown column, a column of another dataset and a foreign prompt", async () => {
    const unknown = { datasetId: target.id, columnId: unknownId("column") };
    expectError(await update(unknown, { name: "x" }), 404, "RESOURCE_NOT_FOUND");
    const elsewhere = { datasetId: target.id, columnId: columnId(dataset, "expected") };
    expectError(await update(elsewhere, { name: "x" }), 404, "RESOURCE_NOT_FOUND");
    expectError(await update(path("answer"), { settings: { promptId: foreignPrompt.id } }), 404, "RESOURCE_NOT_FOUND");
  });

  it("409 CONFLICT for the name of another column", async () => {
    expectError(await update(path("question"), { name: "answer" }), 409, "CONFLICT");
  });

  itAnswersTheErrorMatrix({ access: "write", send, body: true, unchanged: snapshot(() => target.id) });
});

describe("deleteDatasetColumn", () => {
  let target: Dataset;
  beforeAll(async () => {
    target = await newDataset(use().client, projectId, { title: "Shrinking", columns: qaColumns });
  });
  const remove = (p: { datasetId: string; columnId: string }) =>
    use().client.DELETE("/datasets/{datasetId}/columns/{columnId}", { params: { path: p } });
  const send: Send = (client, extra) =>
    client.DELETE("/datasets/{datasetId}/columns/{columnId}", {
      params: { path: { datasetId: target.id, columnId: columnId(target, "expected") } },
      ...extra,
    });

  it("204: deletes the column and its cells; rows and rowCount stay", async () => {
    const { client } = use();
    const doomed = await newDataset(client, projectId, { title: "Cells", columns: qaColumns });
    unwrap(
      await client.POST("/datasets/{datasetId}/rows", {
        params: { path: { datasetId: doomed.id } },
        body: { rows: [{ values: { question: "Q", expected: "A" } }] },
      }),
    );
    const expected = columnId(doomed, "expected");
    expectStatus(await remove({ datasetId: doomed.id, columnId: expected }), 204);
    const after = unwrap(await client.GET("/datasets/{datasetId}", { params: { path: { datasetId: doomed.id } } }));
    expect(after.rowCount).toBe(1);
    expect(after.columns.map((c) => c.name)).toEqual(["question"]);
    const listed = unwrap(
      await client.GET("/datasets/{datasetId}/rows", { params: { path: { datasetId: doomed.id } } }),
    );
    expect(Object.keys(listed.rows[0]?.values ?? {})).toEqual([columnId(doomed, "question")]);
  });

  it("400 VALIDATION_ERROR for a short column id", async () => {
    expectError(await remove({ datasetId: target.id, columnId: "column_1" }), 400, "VALIDATION_ERROR");
  });

  it("404 RESOURCE_NOT_FOUND for an unknown column and a column of another dataset", async () => {
    expectError(await remove({ datasetId: target.id, columnId: unknownId("column") }), 404, "RESOURCE_NOT_FOUND");
    const elsewhere = { datasetId: target.id, columnId: columnId(dataset, "question") };
    expectError(await remove(elsewhere), 404, "RESOURCE_NOT_FOUND");
  });

  itAnswersTheErrorMatrix({ access: "write", send, unchanged: snapshot(() => target.id) });
});

describe("listDatasetRows", () => {
  const send: Send = (client, extra, id = dataset.id) =>
    client.GET("/datasets/{datasetId}/rows", { params: { path: { datasetId: id } }, ...extra });

  it("200: lists rows keyed by column id in the order they were added, and pages through them", async () => {
    const { client } = use();
    const page = await client.GET("/datasets/{datasetId}/rows", {
      params: { path: datasetPath(), query: { limit: 1, sort: "createdAt:asc" } },
    });
    expectStatus(page, 200);
    expect(page.data?.rows.map((r) => r.id)).toEqual([rows[0]?.id]);
    const all = [];
    for await (const row of paginate(client, "GET", "/datasets/{datasetId}/rows", {
      params: { path: datasetPath(), query: { limit: 1, sort: "createdAt:asc" } },
    })) {
      all.push(row);
    }
    expect(all).toEqual(rows);
    expect(all[1]?.values).toEqual({
      [columnId(dataset, "question")]: "Q2",
      [columnId(dataset, "expected")]: null,
    });
  });

  it("200: narrows the cells to the named columns", async () => {
    const question = columnId(dataset, "question");
    const narrowed = await use().client.GET("/datasets/{datasetId}/rows", {
      params: { path: datasetPath(), query: { columns: question } },
    });
    expectStatus(narrowed, 200);
    for (const row of narrowed.data?.rows ?? []) expect(Object.keys(row.values)).toEqual([question]);
  });

  it("400 VALIDATION_ERROR for an unknown column in `columns`, a bad sort and a page size over 200", async () => {
    const { client } = use();
    for (const query of [{ columns: unknownId("column") }, { sort: "id:asc" }, { limit: 201 }]) {
      const reply = await client.GET("/datasets/{datasetId}/rows", { params: { path: datasetPath(), query } as never });
      expectError(reply, 400, "VALIDATION_ERROR");
    }
  });

  itAnswersTheErrorMatrix({ access: "read", send, unknown: "dataset" });
});

describe("createDatasetRows", () => {
  let target: Dataset;
  beforeAll(async () => {
    target = await newDataset(use().client, projectId, { title: "Rows", columns: qaColumns });
  });
  const add = (body: unknown, query: { valuesBy?: "columnName" | "columnId" } = {}, datasetId = target.id) =>
    use().client.POST("/datasets/{datasetId}/rows", {
      params: { path: { datasetId }, query },
      body: body as never,
    });
  const send: Send = (client, extra, id = target.id) =>
    client.POST("/datasets/{datasetId}/rows", {
      params: { path: { datasetId: id } },
      body: { rows: [{ values: { question: "Q" } }] },
      ...extra,
    });

  it("201: adds rows keyed by column name (the default) or id, fills missing cells with null, counts them", async () => {
    const { client } = use();
    const question = columnId(target, "question");
    const expected = columnId(target, "expected");
    const byName = await add({ rows: [{ values: { question: "Q1", expected: 1 } }, { values: { question: true } }] });
    expectStatus(byName, 201);
    expect(byName.data?.rows.map((r) => r.values)).toEqual([
      { [question]: "Q1", [expected]: 1 },
      { [question]: true, [expected]: null },
    ]);
    const byId = await add({ rows: [{ values: { [expected]: "A" } }] }, { valuesBy: "columnId" });
    expectStatus(byId, 201);
    expect(byId.data?.rows[0]?.values).toEqual({ [question]: null, [expected]: "A" });
    const read = unwrap(await client.GET("/datasets/{datasetId}", { params: { path: { datasetId: target.id } } }));
    expect(read.rowCount).toBe(3);
  });

  it("400 VALIDATION_ERROR for 0 or 101 rows, a row without values or with an unknown field, an unknown key, a string over 100,000 characters and a bad valuesBy", async () => {
    const row = { values: { question: "Q" } };
    const cases: [unknown, Record<string, string>][] = [
      [{ rows: [] }, {}],
      [{ rows: [{}] }, {}],
      [{ rows: [{ values: {}, id: "x" }] }, {}],
      [{ rows: Array.from({ length: 101 }, () => row) }, {}],
      [{ rows: [row, { values: { answr: "x" } }] }, {}],
      [{ rows: [{ values: { question: "x".repeat(100_001) } }] }, {}],
      [{ rows: [row] }, { valuesBy: "columnTitle" }],
    ];
    for (const [body, query] of cases) expectError(await add(body, query), 400, "VALIDATION_ERROR");
    const unknownKey = await add({ rows: [row, { values: { answr: "x" } }] });
    expect(unknownKey.error?.error.details?.map((d) => d.field)).toContain("rows.1.values.answr");
    const read = unwrap(
      await use().client.GET("/datasets/{datasetId}", { params: { path: { datasetId: target.id } } }),
    );
    expect(read.rowCount).toBe(3);
  });

  const unchanged = snapshot(() => target.id);
  itAnswersTheErrorMatrix({ access: "write", send, unknown: "dataset", body: true, unchanged });
});

describe("updateDatasetRow", () => {
  const rowPath = (i = 0) => ({ datasetId: dataset.id, rowId: rows[i]?.id as string });
  const update = (path: { datasetId: string; rowId: string }, values: unknown, query = {}) =>
    use().client.PATCH("/datasets/{datasetId}/rows/{rowId}", {
      params: { path, query },
      body: { values } as never,
    });
  const send: Send = (client, extra) =>
    client.PATCH("/datasets/{datasetId}/rows/{rowId}", {
      params: { path: rowPath() },
      body: { values: { question: "Q1" } },
      ...extra,
    });

  it("200: merges the values given into the row (by name or id); null clears a cell", async () => {
    const question = columnId(dataset, "question");
    const expected = columnId(dataset, "expected");
    const merged = await update(rowPath(1), { expected: "A2" });
    expectStatus(merged, 200);
    expect(merged.data?.values).toEqual({ [question]: "Q2", [expected]: "A2" });
    const cleared = await update(rowPath(1), { [expected]: null }, { valuesBy: "columnId" });
    expectStatus(cleared, 200);
    expect(cleared.data?.values).toEqual({ [question]: "Q2", [expected]: null });
  });

  it("400 VALIDATION_ERROR without values, for empty values and for a key that names no column", async () => {
    const withoutValues = await use().client.PATCH("/datasets/{datasetId}/rows/{rowId}", {
      params: { path: rowPath() },
      body: {} as never,
    });
    expectError(withoutValues, 400, "VALIDATION_ERROR");
    expectError(await update(rowPath(), {}), 400, "VALIDATION_ERROR");
    const unknown = await update(rowPath(), { answr: "x" });
    expectError(unknown, 400, "VALIDATION_ERROR");
    expect(JSON.stringify(unknown.error)).toContain("answr");
  });

  it("404 RESOURCE_NOT_FOUND for an unknown row and a row of another dataset", async () => {
    const { client } = use();
    expectError(await update({ ...rowPath(), rowId: unknownId("row") }, { question: "x" }), 404, "RESOURCE_NOT_FOUND");
    const other = await newDataset(client, projectId, { title: "Other rows", columns: qaColumns });
    expectError(
      await update({ datasetId: other.id, rowId: rowPath().rowId }, { question: "x" }),
      404,
      "RESOURCE_NOT_FOUND",
    );
  });

  itAnswersTheErrorMatrix({ access: "write", send, body: true, unchanged: snapshot(() => dataset.id) });
});

describe("deleteDatasetRow", () => {
  let target: Dataset;
  let targetRows: Schemas["DatasetRow"][];
  beforeAll(async () => {
    const { client } = use();
    target = await newDataset(client, projectId, { title: "Pruned", columns: qaColumns });
    targetRows = unwrap(
      await client.POST("/datasets/{datasetId}/rows", {
        params: { path: { datasetId: target.id } },
        body: { rows: [{ values: { question: "a" } }, { values: { question: "b" } }, { values: { question: "c" } }] },
      }),
    ).rows;
  });
  const remove = (path: { datasetId: string; rowId: string }) =>
    use().client.DELETE("/datasets/{datasetId}/rows/{rowId}", { params: { path } });
  const send: Send = (client, extra) =>
    client.DELETE("/datasets/{datasetId}/rows/{rowId}", {
      params: { path: { datasetId: target.id, rowId: targetRows[2]?.id as string } },
      ...extra,
    });

  it("204: deletes the row and rowCount drops by one", async () => {
    const { client } = use();
    expectStatus(await remove({ datasetId: target.id, rowId: targetRows[0]?.id as string }), 204);
    const read = unwrap(await client.GET("/datasets/{datasetId}", { params: { path: { datasetId: target.id } } }));
    expect(read.rowCount).toBe(2);
    expectError(await remove({ datasetId: target.id, rowId: targetRows[0]?.id as string }), 404, "RESOURCE_NOT_FOUND");
  });

  it("400 VALIDATION_ERROR for a short row id", async () => {
    expectError(await remove({ datasetId: target.id, rowId: "row_1" }), 400, "VALIDATION_ERROR");
  });

  it("404 RESOURCE_NOT_FOUND for an unknown row and a row of another dataset", async () => {
    expectError(await remove({ datasetId: target.id, rowId: unknownId("row") }), 404, "RESOURCE_NOT_FOUND");
    expectError(await remove({ datasetId: target.id, rowId: rows[0]?.id as string }), 404, "RESOURCE_NOT_FOUND");
  });

  itAnswersTheErrorMatrix({ access: "write", send, unchanged: snapshot(() => target.id) });
});

describe("fetchDynamicColumns", () => {
  let target: Dataset;
  beforeAll(async () => {
    const { client } = use();
    target = await newDataset(client, projectId, {
      title: "Computed",
      columns: [
        { name: "question", type: "static" },
        { name: "lookup", type: "api", settings: { method: "GET", url: "https://api.example.com/q/{{question}}" } },
      ],
    });
    unwrap(
      await client.POST("/datasets/{datasetId}/rows", {
        params: { path: { datasetId: target.id } },
        body: { rows: [{ values: { question: "a" } }, { values: { question: "b" } }] },
      }),
    );
  });
  const fetchCells = (datasetId: string, body: Record<string, unknown>) =>
    use().client.POST("/datasets/{datasetId}/dynamic-columns/fetch", {
      params: { path: { datasetId } },
      body: body as never,
    });
  const send: Send = (client, extra, id = target.id) =>
    client.POST("/datasets/{datasetId}/dynamic-columns/fetch", {
      params: { path: { datasetId: id } },
      body: { runMode: "first" },
      ...extra,
    });

  it("202: queues the computed cells; row lists show their state", async () => {
    const lookup = columnId(target, "lookup");
    const queued = await fetchCells(target.id, { columnIds: [lookup], runMode: "all" });
    expectStatus(queued, 202);
    expect(queued.data).toEqual({
      datasetId: target.id,
      runMode: "all",
      columnRuns: [{ columnId: lookup, runMode: "all", totalRowsInDataset: 2, queuedRowsCount: 2 }],
    });
    const listed = unwrap(
      await use().client.GET("/datasets/{datasetId}/rows", { params: { path: { datasetId: target.id } } }),
    );
    for (const row of listed.rows) {
      expect(["pending", "done", "failed"]).toContain(row.computed?.[lookup]?.status);
      expect(row.computed?.[columnId(target, "question")]).toBeUndefined();
    }
  });

  it("400 VALIDATION_ERROR for a static column, an unknown row, a cycle and more than 1,000 rows", async () => {
    const { client } = use();
    expectError(await fetchCells(target.id, { columnIds: [columnId(target, "question")] }), 400, "VALIDATION_ERROR");
    expectError(await fetchCells(target.id, { datasetRowIds: [unknownId("row")] }), 400, "VALIDATION_ERROR");
    const ids = Array.from({ length: 1001 }, (_, i) => `row_${String(i).padStart(26, "0")}`);
    expectError(await fetchCells(target.id, { datasetRowIds: ids }), 400, "VALIDATION_ERROR");
    const loop = await newDataset(client, projectId, {
      title: "Loop",
      columns: [
        { name: "a", type: "api", settings: { method: "GET", url: "https://api.example.com/{{b}}" } },
        { name: "b", type: "api", settings: { method: "GET", url: "https://api.example.com/{{a}}" } },
      ],
    });
    expectError(await fetchCells(loop.id, {}), 400, "VALIDATION_ERROR");
  });

  itAnswersTheErrorMatrix({
    access: "write",
    send,
    body: true,
    unknown: "dataset",
    unchanged: snapshot(() => target.id),
  });
});

itProvokedEveryDocumentedStatus(use, [
  "listDatasets",
  "createDataset",
  "getDataset",
  "updateDataset",
  "deleteDataset",
  "createDatasetColumns",
  "updateDatasetColumn",
  "deleteDatasetColumn",
  "listDatasetRows",
  "createDatasetRows",
  "updateDatasetRow",
  "deleteDatasetRow",
  "fetchDynamicColumns",
]);
