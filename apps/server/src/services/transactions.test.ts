/**
 * Service verbs compose: a verb called inside another's transaction joins it, so both commit or roll back
 * together; in a savepoint, a verb that fails is undone alone. Checked through the public API.
 */
import { expect, it } from "vitest";
import { createIdGenerator } from "../ids.ts";
import { describeEachStore, type Harness } from "../testing/harness.ts";
import { inTransaction, type ServiceContext } from "./context.ts";
import { createDataset } from "./datasets/create-dataset.ts";
import { createDatasetRows } from "./datasets/create-dataset-rows.ts";
import { DEFAULT_WEBHOOK_SETTINGS } from "./webhooks/settings.ts";

/** What a request of the harness's full key gets as its context. */
async function serviceContext(h: Harness): Promise<ServiceContext> {
  return {
    db: h.store.db,
    store: h.store,
    principal: { workspaceId: h.workspaceId, keyId: "apikey_test", role: "full", projectIds: null },
    cache: await h.app.readCache.begin(),
    now: h.now,
    newId: createIdGenerator(h.now),
    cursorSecret: "test",
    logWrites: h.app.logWrites,
    secrets: h.secrets,
    modelCalls: { timeoutMs: 5000, maxRetries: 0 },
    wakeWorkers: () => {},
    webhooks: DEFAULT_WEBHOOK_SETTINGS,
  };
}

describeEachStore("service verbs in one transaction", (use) => {
  const datasetTitles = async (h: Harness) => {
    const reply = await h.request("GET", `/datasets?projectId=${h.projectId}&limit=100`);
    expect(reply.status).toBe(200);
    return (reply.body.datasets as { title: string }[]).map((dataset) => dataset.title).sort();
  };
  const newDataset = (tx: ServiceContext, title: string) =>
    createDataset(tx, { projectId: use().projectId, title, columns: [{ name: "q", type: "static" }] });
  const addRow = (tx: ServiceContext, datasetId: string, values: Record<string, unknown>) =>
    createDatasetRows(tx, { datasetId }, { valuesBy: "columnName" }, { rows: [{ values: values as never }] });

  it("commit together: a dataset and its rows, each created by its own verb", async () => {
    const h = use();
    const ctx = await serviceContext(h);
    const datasetId = await inTransaction(ctx, async (tx) => {
      const dataset = await newDataset(tx, "together");
      await addRow(tx, dataset.id, { q: "first" });
      return dataset.id;
    });
    expect(await datasetTitles(h)).toContain("together");
    const rows = await h.request("GET", `/datasets/${datasetId}/rows`);
    expect(rows.body.rows).toHaveLength(1);
  });

  it("roll back together: the second verb's 400 undoes the first verb's dataset", async () => {
    const h = use();
    const ctx = await serviceContext(h);
    await expect(
      inTransaction(ctx, async (tx) => {
        const dataset = await newDataset(tx, "undone");
        await addRow(tx, dataset.id, { "no such column": "x" });
      }),
    ).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
    expect(await datasetTitles(h)).not.toContain("undone");
  });

  it("in a savepoint, the failed verb alone is undone and the first verb's work commits", async () => {
    const h = use();
    const ctx = await serviceContext(h);
    const datasetId = await inTransaction(ctx, async (tx) => {
      const dataset = await newDataset(tx, "kept");
      await expect(
        inTransaction(tx, (nested) => addRow(nested, dataset.id, { "no such column": "x" }), { savepoint: true }),
      ).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
      await addRow(tx, dataset.id, { q: "after the failed one" });
      return dataset.id;
    });
    expect(await datasetTitles(h)).toContain("kept");
    const rows = await h.request("GET", `/datasets/${datasetId}/rows`);
    expect(rows.body.rows.map((row: { values: Record<string, unknown> }) => Object.values(row.values))).toEqual([
      ["after the failed one"],
    ]);
  });
});
