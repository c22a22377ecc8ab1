import { expect, it } from "vitest";
import { addRows, createQaDataset, createThreeColumns } from "../../testing/dataset-fixtures.ts";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";

describeEachStore("listDatasetRows", (use) => {
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
  });
});
