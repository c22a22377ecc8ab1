import { expect, it } from "vitest";
import { describeEachStore } from "../../testing/harness.ts";
import {
  expectError,
  itHidesOtherWorkspaces,
  itRejectsMalformedJson,
  itRejectsMissingAndInvalidKeys,
} from "../../testing/shared-cases.ts";
import {
  addRows,
  createDataset,
  createQaDataset,
  insertEvaluator,
  insertPrompt,
  otherProject,
} from "./dataset-fixtures.ts";

const MISSING = `dataset_${"0".repeat(26)}`;

describeEachStore("datasets: create and get", (use) => {
  it('creates a dataset (201) with the defaults: description "", icon 📊, rowCount 0, no columns', async () => {
    const h = use();
    const created = await h.request("POST", "/datasets", { body: { projectId: h.projectId, title: "Support" } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^dataset_[0-9A-Z]{26}$/),
      projectId: h.projectId,
      title: "Support",
      icon: { type: "emoji", value: "📊" },
      description: "",
      rowCount: 0,
      createdAt: expect.any(Number),
      updatedAt: created.body.createdAt,
      columns: [],
    });
    const read = await h.request("GET", `/datasets/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
  });

  it("creates the initial columns of every type, normalizes their settings and returns them in order", async () => {
    const h = use();
    const promptId = await insertPrompt(h);
    const dataset = await createDataset(h, {
      description: "Real questions",
      icon: { type: "image", value: "https://example.com/icon.png" },
      columns: [
        { name: "question", type: "static" },
        { name: "expected", type: "static", settings: {} },
        { name: "draft", type: "prompt", settings: { promptId } },
        { name: "tier", type: "api", settings: { method: "GET", url: "https://crm.example.com/{{question}}" } },
        {
          name: "lookup",
          type: "api",
          settings: { method: "POST", url: "http://crm", headers: { Accept: "text/plain" }, body: '{"q":1}' },
        },
      ],
    });
    expect(dataset).toMatchObject({ description: "Real questions", icon: { type: "image" } });
    expect(dataset.columns.map((c: { name: string; type: string }) => [c.name, c.type])).toEqual([
      ["question", "static"],
      ["expected", "static"],
      ["draft", "prompt"],
      ["tier", "api"],
      ["lookup", "api"],
    ]);
    expect(dataset.columns.map((c: { settings: unknown }) => c.settings)).toEqual([
      {},
      {},
      { promptId },
      { method: "GET", url: "https://crm.example.com/{{question}}", headers: {}, body: null },
      { method: "POST", url: "http://crm", headers: { Accept: "text/plain" }, body: '{"q":1}' },
    ]);
    for (const column of dataset.columns) {
      expect(column.id).toMatch(/^column_/);
      expect(column).toMatchObject({ createdAt: dataset.createdAt, updatedAt: dataset.createdAt });
    }
    const read = await h.request("GET", `/datasets/${dataset.id}`);
    expect(read.body.columns).toEqual(dataset.columns);
  });

  it("validates title (1–50), description (≤100), fields and columns with 400 VALIDATION_ERROR", async () => {
    const h = use();
    const post = (body: Record<string, unknown>) =>
      h.request("POST", "/datasets", { body: { projectId: h.projectId, title: "t", ...body } });
    const title51 = await post({ title: "x".repeat(51) });
    await expectError(title51, 400, "VALIDATION_ERROR");
    expect(title51.body.error.details[0].field).toBe("title");
    await expectError(await post({ title: "" }), 400, "VALIDATION_ERROR");
    expect((await post({ title: "x".repeat(50) })).status).toBe(201);
    const description101 = await post({ description: "x".repeat(101) });
    await expectError(description101, 400, "VALIDATION_ERROR");
    expect(description101.body.error.details[0].field).toBe("description");
    expect((await post({ description: "x".repeat(100) })).status).toBe(201);
    await expectError(await post({ extra: true }), 400, "VALIDATION_ERROR");
    await expectError(await h.request("POST", "/datasets", { body: { title: "t" } }), 400, "VALIDATION_ERROR");
    await expectError(await post({ icon: { type: "svg", value: "x" } }), 400, "VALIDATION_ERROR");
    const tooMany = Array.from({ length: 101 }, (_, i) => ({ name: `c${i}`, type: "static" }));
    await expectError(await post({ columns: tooMany }), 400, "VALIDATION_ERROR");
    expect((await post({ columns: tooMany.slice(0, 100) })).body.columns).toHaveLength(100);
  });

  it("applies the column rules: repeated names 400, settings per type 400, unknown prompt 404", async () => {
    const h = use();
    const post = (columns: unknown[]) =>
      h.request("POST", "/datasets", { body: { projectId: h.projectId, title: "t", columns } });
    const repeated = await post([
      { name: "q", type: "static" },
      { name: "a", type: "static" },
      { name: "q", type: "static" },
    ]);
    await expectError(repeated, 400, "VALIDATION_ERROR");
    expect(repeated.body.error.details[0].field).toBe("columns.2.name");
    // Names are compared exactly: these differ.
    expect(
      (
        await post([
          { name: "q", type: "static" },
          { name: "Q", type: "static" },
        ])
      ).status,
    ).toBe(201);

    const invalidColumns = [
      { name: "p", type: "prompt" },
      { name: "p", type: "prompt", settings: {} },
      { name: "a", type: "api" },
      { name: "a", type: "api", settings: { method: "GET" } },
      { name: "a", type: "api", settings: { url: "https://x" } },
      { name: "a", type: "api", settings: { method: "PUT", url: "https://x" } },
      { name: "s", type: "static", settings: { promptId: `prompt_${"0".repeat(26)}` } },
      { name: "x", type: "computed" },
      { name: "a,b", type: "static" },
      { name: "", type: "static" },
      { name: "n".repeat(101), type: "static" },
    ];
    for (const column of invalidColumns) {
      await expectError(await post([column]), 400, "VALIDATION_ERROR");
    }
    const getWithBody = await post([
      { name: "a", type: "api", settings: { method: "GET", url: "https://x", body: "{}" } },
    ]);
    await expectError(getWithBody, 400, "VALIDATION_ERROR");
    expect(getWithBody.body.error.details[0].field).toBe("columns.0.settings.body");
    const relative = await post([{ name: "a", type: "api", settings: { method: "GET", url: "/tier" } }]);
    await expectError(relative, 400, "VALIDATION_ERROR");
    expect(relative.body.error.details[0].field).toBe("columns.0.settings.url");
    await expectError(
      await post([{ name: "a", type: "api", settings: { method: "GET", url: "ftp://x" } }]),
      400,
      "VALIDATION_ERROR",
    );
    const headers = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`X-H${i}`, "v"]));
    await expectError(
      await post([{ name: "a", type: "api", settings: { method: "GET", url: "https://x", headers } }]),
      400,
      "VALIDATION_ERROR",
    );

    const before = await h.request("GET", `/datasets?projectId=${h.projectId}&limit=200`);
    const elsewhere = await insertPrompt(h, await otherProject(h));
    for (const promptId of [elsewhere, `prompt_${"0".repeat(26)}`]) {
      const reply = await post([
        { name: "q", type: "static" },
        { name: "p", type: "prompt", settings: { promptId } },
      ]);
      await expectError(reply, 404, "RESOURCE_NOT_FOUND");
    }
    const after = await h.request("GET", `/datasets?projectId=${h.projectId}&limit=200`);
    expect(after.body.datasets).toEqual(before.body.datasets);
  });

  it("answers 404 for an unknown project or dataset and 400 for a malformed id", async () => {
    const h = use();
    await expectError(
      await h.request("POST", "/datasets", { body: { projectId: `project_${"0".repeat(26)}`, title: "t" } }),
      404,
      "RESOURCE_NOT_FOUND",
    );
    await expectError(await h.request("GET", `/datasets/${MISSING}`), 404, "RESOURCE_NOT_FOUND");
    await expectError(await h.request("GET", "/datasets/dataset_short"), 400, "VALIDATION_ERROR");
  });

  itRejectsMissingAndInvalidKeys(use, {
    method: "POST",
    path: () => "/datasets",
    body: (h) => ({ projectId: h.projectId, title: "t" }),
  });
  itRejectsMalformedJson(use, { method: "POST", path: () => "/datasets" });
  itHidesOtherWorkspaces(use, {
    method: "POST",
    path: () => "/datasets",
    body: (h) => ({ projectId: h.projectId, title: "t" }),
  });
  itHidesOtherWorkspaces(use, { method: "GET", path: async (h) => `/datasets/${(await createDataset(h)).id}` });
});

describeEachStore("datasets: list", (use) => {
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

  it("requires projectId (400) and answers 404 for an unknown project", async () => {
    const h = use();
    const missing = await h.request("GET", "/datasets");
    await expectError(missing, 400, "VALIDATION_ERROR");
    expect(missing.body.error.details[0].field).toBe("query.projectId");
    await expectError(
      await h.request("GET", `/datasets?projectId=project_${"0".repeat(26)}`),
      404,
      "RESOURCE_NOT_FOUND",
    );
    await expectError(await h.request("GET", `/datasets?projectId=${h.projectId}&limit=0`), 400, "VALIDATION_ERROR");
  });

  itRejectsMissingAndInvalidKeys(use, { method: "GET", path: (h) => `/datasets?projectId=${h.projectId}` });
  itHidesOtherWorkspaces(use, { method: "GET", path: (h) => `/datasets?projectId=${h.projectId}` });
});

describeEachStore("datasets: update and delete", (use) => {
  it("updates title, description and icon (200), answering the dataset without its columns", async () => {
    const h = use();
    const dataset = await createQaDataset(h);
    const path = `/datasets/${dataset.id}`;
    const updated = await h.request("PATCH", path, {
      body: { title: "Renamed", description: "Curated", icon: { type: "emoji", value: "🧪" } },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({
      ...dataset,
      columns: undefined,
      title: "Renamed",
      description: "Curated",
      icon: { type: "emoji", value: "🧪" },
      updatedAt: expect.any(Number),
    });
    expect(updated.body).not.toHaveProperty("columns");
    expect(updated.body.updatedAt).toBeGreaterThan(dataset.updatedAt);
    const cleared = await h.request("PATCH", path, { body: { description: "" } });
    expect(cleared.body).toMatchObject({ title: "Renamed", description: "" });
    const read = await h.request("GET", path);
    expect(read.body).toMatchObject({ title: "Renamed", description: "", columns: dataset.columns });
  });

  it("rejects {} and out-of-bounds fields (400) and unknown datasets (404)", async () => {
    const h = use();
    const dataset = await createDataset(h);
    const path = `/datasets/${dataset.id}`;
    await expectError(await h.request("PATCH", path, { body: {} }), 400, "VALIDATION_ERROR");
    await expectError(await h.request("PATCH", path, { body: { title: "x".repeat(51) } }), 400, "VALIDATION_ERROR");
    await expectError(await h.request("PATCH", path, { body: { title: "" } }), 400, "VALIDATION_ERROR");
    await expectError(
      await h.request("PATCH", path, { body: { description: "x".repeat(101) } }),
      400,
      "VALIDATION_ERROR",
    );
    await expectError(await h.request("PATCH", path, { body: { rowCount: 3 } }), 400, "VALIDATION_ERROR");
    await expectError(await h.request("PATCH", path, { body: { columns: [] } }), 400, "VALIDATION_ERROR");
    await expectError(
      await h.request("PATCH", `/datasets/${MISSING}`, { body: { title: "x" } }),
      404,
      "RESOURCE_NOT_FOUND",
    );
    expect((await h.request("GET", path)).body).toEqual(dataset);
  });

  it("deletes a dataset with its columns and rows (204)", async () => {
    const h = use();
    const dataset = await createQaDataset(h);
    await addRows(h, dataset.id, [{ question: "a" }, { question: "b" }]);
    const deleted = await h.request("DELETE", `/datasets/${dataset.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBe("");
    await expectError(await h.request("GET", `/datasets/${dataset.id}`), 404, "RESOURCE_NOT_FOUND");
    await expectError(await h.request("GET", `/datasets/${dataset.id}/rows`), 404, "RESOURCE_NOT_FOUND");
    await expectError(await h.request("DELETE", `/datasets/${dataset.id}`), 404, "RESOURCE_NOT_FOUND");
    const leftRows = await h.store.db
      .selectFrom("datasetRows")
      .select("id")
      .where("datasetId", "=", dataset.id)
      .execute();
    const leftColumns = await h.store.db
      .selectFrom("datasetColumns")
      .select("id")
      .where("datasetId", "=", dataset.id)
      .execute();
    expect([leftRows, leftColumns]).toEqual([[], []]);
  });

  it("keeps a dataset that an active or archived evaluator refers to (409)", async () => {
    const h = use();
    for (const status of ["active", "archived"] as const) {
      const dataset = await createQaDataset(h);
      await addRows(h, dataset.id, [{ question: "a" }]);
      const evaluatorId = await insertEvaluator(h, dataset.id, status);
      await expectError(await h.request("DELETE", `/datasets/${dataset.id}`), 409, "CONFLICT");
      const kept = await h.request("GET", `/datasets/${dataset.id}`);
      expect(kept.body).toMatchObject({ rowCount: 1, columns: dataset.columns });
      await h.store.db.deleteFrom("evaluators").where("id", "=", evaluatorId).execute();
      expect((await h.request("DELETE", `/datasets/${dataset.id}`)).status).toBe(204);
    }
  });

  itRejectsMalformedJson(use, { method: "PATCH", path: async (h) => `/datasets/${(await createDataset(h)).id}` });
  itRejectsMissingAndInvalidKeys(use, {
    method: "DELETE",
    path: async (h) => `/datasets/${(await createDataset(h)).id}`,
  });
  itHidesOtherWorkspaces(use, {
    method: "PATCH",
    path: async (h) => `/datasets/${(await createDataset(h)).id}`,
    body: () => ({ title: "x" }),
  });
  itHidesOtherWorkspaces(use, { method: "DELETE", path: async (h) => `/datasets/${(await createDataset(h)).id}` });
});

describeEachStore("datasets: roles and project restrictions", (use) => {
  /** Every Datasets operation on one dataset, with a body that would succeed for a full key. */
  async function operations(h: ReturnType<typeof use>) {
    const dataset = await createQaDataset(h);
    const [row] = await addRows(h, dataset.id, [{ question: "q" }]);
    const columnId = dataset.columns[0].id;
    const d = `/datasets/${dataset.id}`;
    return {
      dataset,
      reads: [
        ["GET", `/datasets?projectId=${h.projectId}`],
        ["GET", d],
        ["GET", `${d}/rows`],
      ] as [string, string, unknown?][],
      writes: [
        ["POST", "/datasets", { projectId: h.projectId, title: "t" }],
        ["PATCH", d, { title: "t" }],
        ["POST", `${d}/columns`, { columns: [{ name: "new", type: "static" }] }],
        ["PATCH", `${d}/columns/${columnId}`, { name: "renamed" }],
        ["DELETE", `${d}/columns/${columnId}`],
        ["POST", `${d}/rows`, { rows: [{ values: {} }] }],
        ["PATCH", `${d}/rows/${row.id}`, { values: { expected: "x" } }],
        ["DELETE", `${d}/rows/${row.id}`],
        ["DELETE", d],
      ] as [string, string, unknown?][],
    };
  }

  it("lets a read-only key read (200) and refuses its writes (403)", async () => {
    const h = use();
    const key = await h.newKey("read-only");
    const { dataset, reads, writes } = await operations(h);
    for (const [method, path] of reads) expect((await h.request(method, path, { key })).status).toBe(200);
    for (const [method, path, body] of writes) {
      await expectError(await h.request(method, path, { key, body }), 403, "FORBIDDEN");
    }
    expect((await h.request("GET", `/datasets/${dataset.id}`)).body).toMatchObject({ rowCount: 1 });
  });

  it("refuses an ingest-only key (403) and a key restricted to other projects (403) on every operation", async () => {
    const h = use();
    const ingest = await h.newKey("ingest-only");
    const restricted = await h.newKey("full", [await otherProject(h)]);
    const { dataset, reads, writes } = await operations(h);
    for (const key of [ingest, restricted]) {
      for (const [method, path, body] of [...reads, ...writes]) {
        await expectError(await h.request(method, path, { key, body }), 403, "FORBIDDEN");
      }
    }
    const untouched = await h.request("GET", `/datasets/${dataset.id}`);
    expect(untouched.body).toMatchObject({ title: dataset.title, rowCount: 1, columns: dataset.columns });
  });

  it("lets a key restricted to the dataset's project use it", async () => {
    const h = use();
    const key = await h.newKey("full", [h.projectId]);
    const dataset = await createDataset(h, {}, key);
    expect((await h.request("GET", `/datasets/${dataset.id}`, { key })).status).toBe(200);
    expect((await h.request("DELETE", `/datasets/${dataset.id}`, { key })).status).toBe(204);
  });
});
