import { expect, it } from "vitest";
import { createQaDataset } from "../../testing/dataset-fixtures.ts";
import { describeEachStore } from "../../testing/harness.ts";

describeEachStore("updateDataset", (use) => {
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
});
