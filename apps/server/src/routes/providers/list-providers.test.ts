import { expect, it } from "vitest";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";
import { createProvider } from "../../testing/provider-fixtures.ts";

describeEachStore("listProviders", (use) => {
  it("lists the workspace's records newest first, pages with cursors, sorts and filters by creation", async () => {
    const h = use();
    const { key } = await h.otherWorkspace();
    const made = [];
    for (const name of ["a", "b", "c"]) made.push(await createProvider(h, { displayName: name }, key));
    const page = await h.request("GET", "/providers?limit=2", { key });
    expect(page.status).toBe(200);
    expect(page.body.providers).toEqual([made[2], made[1]]);
    expect(page.body.pagination).toMatchObject({ limit: 2, returned: 2, hasMore: true });
    const next = await h.request("GET", `/providers?limit=2&cursor=${page.body.pagination.nextCursor}`, { key });
    expect(next.body.providers).toEqual([made[0]]);
    expect(next.body.pagination).toMatchObject({ returned: 1, hasMore: false, nextCursor: null });
    const ascending = await h.request("GET", "/providers?sort=createdAt:asc", { key });
    expect(ascending.body.providers.map((p: { id: string }) => p.id)).toEqual(made.map((p) => p.id));
    const window = await h.request(
      "GET",
      `/providers?createdAfter=${made[1].createdAt}&createdBefore=${made[1].createdAt}`,
      { key },
    );
    expect(window.body.providers).toEqual([made[1]]);
    await expectError(
      await h.request("GET", `/providers?sort=createdAt:asc&cursor=${page.body.pagination.nextCursor}`, { key }),
      400,
      "INVALID_CURSOR",
    );
  });

  it("leaves the records of other workspaces out", async () => {
    const h = use();
    await createProvider(h);
    const other = await h.otherWorkspace();
    expect((await h.request("GET", "/providers", { key: other.key })).body.providers).toEqual([]);
  });
});
