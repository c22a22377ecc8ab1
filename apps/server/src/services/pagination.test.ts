/**
 * A cursor belongs to the workspace that obtained it as well as to its query: presented by a key of another
 * workspace, even with the same query, it is 400 INVALID_CURSOR (the spec's "foreign cursor").
 */
import { expect, it } from "vitest";
import { expectError } from "../testing/expect-error.ts";
import { describeEachStore } from "../testing/harness.ts";

describeEachStore("cursors", (use) => {
  it("are refused with another workspace's key, for the same query, and accepted with their own", async () => {
    const h = use();
    for (const title of ["first", "second"]) await h.request("POST", "/projects", { body: { title } });
    const page = await h.request("GET", "/projects?limit=1");
    const cursor = page.body.pagination.nextCursor as string;
    expect(cursor).toEqual(expect.any(String));

    const other = await h.otherWorkspace();
    await expectError(
      await h.request("GET", `/projects?limit=1&cursor=${cursor}`, { key: other.key }),
      400,
      "INVALID_CURSOR",
    );
    expect((await h.request("GET", `/projects?limit=1&cursor=${cursor}`)).status).toBe(200);
  });
});
