import { expect, it } from "vitest";
import { createDataset, insertPrompt, otherProject } from "../../testing/dataset-fixtures.ts";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";

describeEachStore("createDataset", (use) => {
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

  it("validates title (1–50), description (≤100) and the number of columns (≤100) with 400 VALIDATION_ERROR", async () => {
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
});
