/**
 * Computed dataset columns end to end, in process: fetchDynamicColumns queues cells through the API, a worker on
 * the same database computes them against the fake LLM provider and a real HTTP server on loopback, and the
 * cells' values and states are read back through the row list.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectError } from "../../testing/expect-error.ts";
import { type FakeProvider, startFakeProvider } from "../../testing/fake-provider.ts";
import { describeEachStore, type Harness } from "../../testing/harness.ts";

let fake: FakeProvider;
let api: Server;
let apiUrl: string;
/** Row numbers the api server answers 500 for (`/flaky/<n>`). */
const failing = new Set<string>();

beforeAll(async () => {
  fake = await startFakeProvider();
  api = createServer((request, response) => {
    const path = request.url ?? "";
    if (path.startsWith("/echo/")) {
      response.end(`got ${decodeURIComponent(path.slice("/echo/".length))} ${request.headers["x-token"] ?? ""}`.trim());
    } else if (path.startsWith("/flaky/")) {
      const n = path.slice("/flaky/".length);
      response.statusCode = failing.has(n) ? 500 : 200;
      response.end(`tier ${n}`);
    } else if (path === "/big") {
      response.end("x".repeat(100_001));
    } else if (path === "/slow") {
      setTimeout(() => response.end("late"), 1500).unref();
    } else {
      response.statusCode = 404;
      response.end();
    }
  });
  await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
  apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await fake.close();
  api.closeAllConnections();
  await new Promise((resolve) => api.close(resolve));
});

async function ok(h: Harness, method: string, path: string, body?: unknown) {
  const reply = await h.request(method, path, { body });
  expect(reply.status, `${method} ${path}: ${JSON.stringify(reply.body)}`).toBeLessThan(300);
  return reply.body;
}

let sequence = 0;

/** A prompt on the fake provider whose user message is `text` (the fake answers "Echo: " + it). */
async function newPrompt(h: Harness, text: string) {
  const provider = await ok(h, "POST", "/providers", {
    provider: "openai",
    displayName: `Fake ${++sequence}`,
    baseUrl: `${fake.url}/v1`,
    credentials: { apiKey: "sk-fake" },
  });
  const prompt = await ok(h, "POST", "/prompts", {
    projectId: h.projectId,
    title: "Answer",
    draft: {
      config: { provider: "openai", providerId: provider.id, model: "gpt-4o-mini" },
      messages: [{ role: "user", content: [{ modality: "text", value: text }] }],
    },
  });
  return prompt.id as string;
}

/** A dataset with a static `n` column (rows "0", "1", …) and the given extra columns; ids by column name. */
async function newDataset(h: Harness, columns: unknown[], rows = 3) {
  const dataset = await ok(h, "POST", "/datasets", {
    projectId: h.projectId,
    title: "Customers",
    columns: [{ name: "n", type: "static" }, ...columns],
  });
  const rowIds: string[] = [];
  for (let start = 0; start < rows; start += 100) {
    const count = Math.min(100, rows - start);
    const created = await ok(h, "POST", `/datasets/${dataset.id}/rows`, {
      rows: Array.from({ length: count }, (_, i) => ({ values: { n: String(start + i) } })),
    });
    rowIds.push(...created.rows.map((row: { id: string }) => row.id));
  }
  const ids = Object.fromEntries(
    dataset.columns.map((column: { id: string; name: string }) => [column.name, column.id]),
  );
  return { datasetId: dataset.id as string, ids: ids as Record<string, string>, rowIds };
}

const fetchCells = (h: Harness, datasetId: string, body: Record<string, unknown>) =>
  h.request("POST", `/datasets/${datasetId}/dynamic-columns/fetch`, { body });

async function rowsOf(h: Harness, datasetId: string) {
  return (await ok(h, "GET", `/datasets/${datasetId}/rows?sort=createdAt:asc&limit=200`)).rows as any[];
}

/** The rows once no cell of theirs is pending. */
async function settledRows(h: Harness, datasetId: string) {
  for (let attempt = 0; attempt < 500; attempt++) {
    const rows = await rowsOf(h, datasetId);
    const cells = rows.flatMap((row) => Object.values(row.computed ?? {})) as { status: string }[];
    if (cells.every((cell) => cell.status !== "pending")) return rows;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("computed cells stayed pending");
}

const promptColumn = (name: string, promptId: string) => ({ name, type: "prompt", settings: { promptId } });
const apiColumn = (name: string, url: string, extra: Record<string, unknown> = {}) => ({
  name,
  type: "api",
  settings: { method: "GET", url, ...extra },
});

describeEachStore("computed dataset columns", (use) => {
  beforeAll(async () => {
    await use().startWorker({ concurrency: 3, api: { allowPrivateAddresses: true, timeoutMs: 1000 } });
  });

  it("runMode all: computes every prompt cell through the provider, with status, latency and cost", async () => {
    const h = use();
    fake.configure({ latencyMs: 0 });
    const promptId = await newPrompt(h, "Describe customer {{n}}");
    const { datasetId, ids } = await newDataset(h, [promptColumn("summary", promptId)]);
    const reply = await fetchCells(h, datasetId, { runMode: "all" });
    expect(reply.status, JSON.stringify(reply.body)).toBe(202);
    expect(reply.body).toEqual({
      datasetId,
      runMode: "all",
      columnRuns: [{ columnId: ids.summary, runMode: "all", totalRowsInDataset: 3, queuedRowsCount: 3 }],
    });
    const rows = await settledRows(h, datasetId);
    expect(
      rows.map((row) => row.values[ids.summary as string]),
      JSON.stringify(rows),
    ).toEqual(["Echo: Describe customer 0", "Echo: Describe customer 1", "Echo: Describe customer 2"]);
    for (const row of rows) {
      const cell = row.computed[ids.summary as string];
      expect(cell).toMatchObject({ status: "done", reason: null });
      expect(cell.latency).toBeGreaterThanOrEqual(0);
      expect(cell.cost).toBeGreaterThan(0);
      expect(row.computed[ids.n as string]).toBeUndefined();
    }
  });

  it("a prompt column naming a deployment runs its snapshot, not the draft; another prompt's deployment is 404", async () => {
    const h = use();
    const promptId = await newPrompt(h, "Deployed {{n}}");
    const environment = await ok(h, "POST", `/projects/${h.projectId}/deployment-environments`, {
      name: `env-${++sequence}`,
    });
    const deployment = await ok(h, "POST", `/prompts/${promptId}/deployments`, {
      deploymentEnvironmentId: environment.id,
    });
    // Change the draft after deploying: the column runs the deployment.
    await ok(h, "PATCH", `/prompts/${promptId}`, {
      messages: [{ role: "user", content: [{ modality: "text", value: "Draft {{n}}" }] }],
    });
    const settings = { promptId, deploymentId: deployment.id };
    const { datasetId, ids } = await newDataset(h, [{ name: "deployed", type: "prompt", settings }], 2);
    const column = (await ok(h, "GET", `/datasets/${datasetId}`)).columns.find(
      (c: { id: string }) => c.id === ids.deployed,
    );
    expect(column.settings).toEqual(settings);
    expect((await fetchCells(h, datasetId, { runMode: "all" })).status).toBe(202);
    const rows = await settledRows(h, datasetId);
    expect(rows.map((row) => row.values[ids.deployed as string])).toEqual(["Echo: Deployed 0", "Echo: Deployed 1"]);

    const other = await newPrompt(h, "Other {{n}}");
    const refused = await h.request("POST", "/datasets", {
      body: {
        projectId: h.projectId,
        title: "Mixed up",
        columns: [{ name: "wrong", type: "prompt", settings: { promptId: other, deploymentId: deployment.id } }],
      },
    });
    expect(refused.status).toBe(404);
    expect(refused.body.error.code).toBe("RESOURCE_NOT_FOUND");
    const changed = await h.request("PATCH", `/datasets/${datasetId}/columns/${ids.deployed}`, {
      body: { settings: { promptId: other, deploymentId: deployment.id } },
    });
    expect(changed.status).toBe(404);
  });

  it("runMode first: computes the oldest chosen row only", async () => {
    const h = use();
    const promptId = await newPrompt(h, "Hi {{n}}");
    const { datasetId, ids, rowIds } = await newDataset(h, [promptColumn("greeting", promptId)]);
    const reply = await fetchCells(h, datasetId, { runMode: "first", datasetRowIds: [rowIds[2], rowIds[1]] });
    expect(reply.status).toBe(202);
    expect(reply.body.columnRuns[0].queuedRowsCount).toBe(1);
    const rows = await settledRows(h, datasetId);
    expect(rows.map((row) => row.values[ids.greeting as string])).toEqual([null, "Echo: Hi 1", null]);
    expect(rows.map((row) => row.computed?.[ids.greeting as string]?.status)).toEqual([undefined, "done", undefined]);
  });

  it("a failing api cell is failed with the reason; runMode failed computes only the failed cells again", async () => {
    const h = use();
    failing.clear();
    failing.add("1");
    const { datasetId, ids } = await newDataset(h, [apiColumn("tier", `${apiUrl}/flaky/{{n}}`)]);
    expect((await fetchCells(h, datasetId, {})).status).toBe(202);
    let rows = await settledRows(h, datasetId);
    const tier = ids.tier as string;
    expect(rows.map((row) => row.values[tier])).toEqual(["tier 0", null, "tier 2"]);
    expect(rows.map((row) => row.computed[tier].status)).toEqual(["done", "failed", "done"]);
    expect(rows[1].computed[tier]).toMatchObject({ reason: "The endpoint answered 500.", cost: 0 });
    const doneAt = rows[0].computed[tier].updatedAt;

    failing.clear();
    const again = await fetchCells(h, datasetId, { runMode: "failed", columnIds: [tier] });
    expect(again.status).toBe(202);
    expect(again.body.columnRuns).toEqual([
      { columnId: tier, runMode: "failed", totalRowsInDataset: 3, queuedRowsCount: 1 },
    ]);
    rows = await settledRows(h, datasetId);
    expect(
      rows.map((row) => row.values[tier]),
      JSON.stringify(rows),
    ).toEqual(["tier 0", "tier 1", "tier 2"]);
    expect(rows.map((row) => row.computed[tier].status)).toEqual(["done", "done", "done"]);
    expect(rows[0].computed[tier].updatedAt).toBe(doneAt);
  });

  it("api cells: placeholders filled (URL-encoded in the URL), timeout and response size cap fail the cell", async () => {
    const h = use();
    const { datasetId, ids } = await newDataset(
      h,
      [
        apiColumn("echo", `${apiUrl}/echo/{{n}} a&b`, { headers: { "X-Token": "t-{{n}}" } }),
        apiColumn("big", `${apiUrl}/big`),
        apiColumn("slow", `${apiUrl}/slow`),
        apiColumn("signed", `${apiUrl}/echo/{{n}}`, { secretHeaders: { "X-Token": "s3cret-token" } }),
      ],
      1,
    );
    expect((await fetchCells(h, datasetId, {})).status).toBe(202);
    const [row] = await settledRows(h, datasetId);
    expect(row.values[ids.echo as string]).toBe("got 0 a&b t-0");
    expect(row.values[ids.signed as string]).toBe("got 0 s3cret-token");
    expect(row.computed[ids.big as string]).toMatchObject({
      status: "failed",
      reason: "The response is larger than 100,000 bytes.",
    });
    expect(row.computed[ids.slow as string]).toMatchObject({ status: "failed", reason: "No answer within 1 s." });
    expect(row.values[ids.slow as string]).toBeNull();
  });

  it("a column reading another computed column queued with it waits for it in each row", async () => {
    const h = use();
    const promptId = await newPrompt(h, "Name {{n}}");
    const { datasetId, ids } = await newDataset(h, [
      apiColumn("lookup", `${apiUrl}/echo/{{name}}`),
      promptColumn("name", promptId),
    ]);
    fake.configure({ latencyMs: 50 });
    expect((await fetchCells(h, datasetId, {})).status).toBe(202);
    const rows = await settledRows(h, datasetId);
    fake.configure({ latencyMs: 0 });
    expect(
      rows.map((row) => row.values[ids.lookup as string]),
      JSON.stringify(rows),
    ).toEqual(["got Echo: Name 0", "got Echo: Name 1", "got Echo: Name 2"]);
  });

  it("a prompt column feeds an evaluation run; a run is refused while cells are pending", async () => {
    const h = use();
    const writer = await newPrompt(h, "Customer {{n}}");
    const { datasetId, ids } = await newDataset(h, [promptColumn("draft", writer)]);
    const evaluated = await newPrompt(h, "{{draft}}");
    const evaluator = await ok(h, "POST", `/prompts/${evaluated}/evaluators`, {
      projectId: h.projectId,
      datasetId,
      title: "Echoes the draft",
      config: { type: "text-matcher", operator: "equals", value: "Echo: {{draft}}" },
    });
    fake.configure({ latencyMs: 300 });
    expect((await fetchCells(h, datasetId, { columnIds: [ids.draft] })).status).toBe(202);
    const refused = await h.request("POST", `/prompts/${evaluated}/evaluations`, {
      body: { evaluatorId: evaluator.id },
    });
    await expectError(refused, 409, "CONFLICT");
    expect(refused.body.error.message).toMatch(/pending/);
    await settledRows(h, datasetId);
    fake.configure({ latencyMs: 0 });

    const run = await ok(h, "POST", `/prompts/${evaluated}/evaluations`, { evaluatorId: evaluator.id });
    let finished: any;
    for (let attempt = 0; attempt < 500; attempt++) {
      finished = await ok(h, "GET", `/prompts/${evaluated}/evaluations/${run.runId}`);
      if (["completed", "failed"].includes(finished.status)) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(finished).toMatchObject({ status: "completed", metrics: { passRuns: 3, failRuns: 0, unknownRuns: 0 } });
  });

  describe("bad input", () => {
    it("unknown or static columns, and unknown rows, are 400 naming them", async () => {
      const h = use();
      const { datasetId, ids, rowIds } = await newDataset(h, [apiColumn("tier", `${apiUrl}/flaky/{{n}}`)]);
      const unknown = await fetchCells(h, datasetId, { columnIds: [ids.tier, "column_01JD8Q5B4C6D8E0F2G4H6J8K0Z"] });
      await expectError(unknown, 400, "VALIDATION_ERROR");
      expect(unknown.body.error.details).toEqual([
        { field: "columnIds.1", issue: expect.stringContaining("names no") },
      ]);
      const fixed = await fetchCells(h, datasetId, { columnIds: [ids.n] });
      await expectError(fixed, 400, "VALIDATION_ERROR");
      expect(fixed.body.error.details[0].field).toBe("columnIds.0");
      const row = await fetchCells(h, datasetId, { datasetRowIds: ["row_01JD8Q5C5D7E9F1G3H5J7K9M1Z"] });
      await expectError(row, 400, "VALIDATION_ERROR");
      expect(row.body.error.details[0].field).toBe("datasetRowIds.0");
      expect(await rowsOf(h, datasetId)).toSatisfy((rows: any[]) => rows.every((r) => r.computed === undefined));
      const repeated = await fetchCells(h, datasetId, {
        columnIds: [ids.tier, ids.tier],
        datasetRowIds: [rowIds[0], rowIds[0]],
      });
      expect(repeated.status).toBe(202);
      expect(repeated.body.columnRuns).toEqual([expect.objectContaining({ columnId: ids.tier, queuedRowsCount: 1 })]);
    });

    it("secret headers are sealed at rest and never returned; one also among `headers` is 400", async () => {
      const h = use();
      const { datasetId, ids } = await newDataset(
        h,
        [apiColumn("crm", `${apiUrl}/echo/{{n}}`, { secretHeaders: { Authorization: "Bearer crm-key-123" } })],
        0,
      );
      const read = await ok(h, "GET", `/datasets/${datasetId}`);
      expect(read.columns[1].settings).toEqual({
        method: "GET",
        url: `${apiUrl}/echo/{{n}}`,
        headers: {},
        secretHeaderNames: ["Authorization"],
        body: null,
      });
      const stored = await h.store.db
        .selectFrom("datasetColumns")
        .select("settings")
        .where("id", "=", ids.crm as string)
        .executeTakeFirstOrThrow();
      expect(stored.settings).not.toContain("crm-key-123");
      const twice = await h.request("PATCH", `/datasets/${datasetId}/columns/${ids.crm}`, {
        body: {
          settings: {
            method: "GET",
            url: `${apiUrl}/x`,
            headers: { authorization: "a" },
            secretHeaders: { Authorization: "b" },
          },
        },
      });
      await expectError(twice, 400, "VALIDATION_ERROR");
      expect(twice.body.error.details[0].field).toBe("settings.secretHeaders.Authorization");
    });

    it("a prompt column whose prompt reads a column computed from it is a cycle: 400", async () => {
      const h = use();
      const selfReading = await newPrompt(h, "Improve {{answer}}");
      const own = await newDataset(h, [promptColumn("answer", selfReading)], 1);
      const reply = await fetchCells(h, own.datasetId, {});
      await expectError(reply, 400, "VALIDATION_ERROR");
      expect(reply.body.error.details[0].issue).toContain("cycle (answer → answer)");

      const readsLookup = await newPrompt(h, "Summarise {{lookup}}");
      const pair = await newDataset(
        h,
        [promptColumn("summary", readsLookup), apiColumn("lookup", `${apiUrl}/echo/{{summary}}`)],
        1,
      );
      const loop = await fetchCells(h, pair.datasetId, { columnIds: [pair.ids.lookup] });
      await expectError(loop, 400, "VALIDATION_ERROR");
      expect(loop.body.error.details[0].issue).toContain("lookup → summary → lookup");
    });

    it("10,000 rows at once is 400; a dataset over 1,000 rows is computed in parts", async () => {
      const h = use();
      const { datasetId, ids, rowIds } = await newDataset(h, [apiColumn("tier", `${apiUrl}/flaky/{{n}}`)], 1001);
      const tenThousand = Array.from({ length: 10_000 }, (_, i) => `row_${String(i).padStart(26, "0")}`);
      await expectError(await fetchCells(h, datasetId, { datasetRowIds: tenThousand }), 400, "VALIDATION_ERROR");
      const all = await fetchCells(h, datasetId, { runMode: "all" });
      await expectError(all, 400, "VALIDATION_ERROR");
      expect(all.body.error.details[0].issue).toContain("at most 1000 rows");
      const part = await fetchCells(h, datasetId, { columnIds: [ids.tier], datasetRowIds: rowIds.slice(0, 2) });
      expect(part.status).toBe(202);
      expect(part.body.columnRuns[0]).toMatchObject({ totalRowsInDataset: 1001, queuedRowsCount: 2 });
    });
  });
});

describeEachStore(
  "computed dataset columns without private addresses",
  (use) => {
    it("an api URL on a loopback or private address is 400", async () => {
      const h = use();
      for (const url of ["http://127.0.0.1:9/x", "http://10.1.2.3/{{n}}", "http://localhost/x"]) {
        const { datasetId } = await newDataset(h, [apiColumn("tier", url)], 1);
        const reply = await fetchCells(h, datasetId, {});
        await expectError(reply, 400, "VALIDATION_ERROR");
        expect(reply.body.error.details[0].issue).toContain("PHAROS_WEBHOOKS_ALLOW_PRIVATE");
      }
    });

    it("a host that comes from a cell is checked when the cell is computed", async () => {
      const h = use();
      await h.startWorker({ concurrency: 2 });
      const dataset = await ok(h, "POST", "/datasets", {
        projectId: h.projectId,
        title: "Hosts",
        columns: [{ name: "host", type: "static" }, apiColumn("page", "http://{{host}}:9/x")],
      });
      await ok(h, "POST", `/datasets/${dataset.id}/rows`, { rows: [{ values: { host: "127.0.0.1" } }] });
      expect((await fetchCells(h, dataset.id, {})).status).toBe(202);
      const [row] = await settledRows(h, dataset.id);
      const cell = row.computed[dataset.columns[1].id];
      expect(cell.status).toBe("failed");
      expect(cell.reason).toMatch(/^Refused: 127\.0\.0\.1 is a loopback/);
    });
  },
  { webhooks: { allowPrivateAddresses: false, timeoutMs: 2000, wake: () => {} } },
);
