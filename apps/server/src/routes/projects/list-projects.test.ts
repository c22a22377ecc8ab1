import { expect, it } from "vitest";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";

describeEachStore("listProjects", (use) => {
  it("lists projects newest first with cursor pagination, and honours sort and createdAfter", async () => {
    const h = use();
    const titles = ["p1", "p2", "p3"];
    const ids = [];
    for (const title of titles) ids.push((await h.request("POST", "/projects", { body: { title } })).body.id);
    const first = await h.request("GET", "/projects?limit=2");
    expect(first.status).toBe(200);
    expect(first.body.pagination).toMatchObject({ limit: 2, returned: 2, hasMore: true });
    expect(first.body.projects.map((p: { title: string }) => p.title)).toEqual(["p3", "p2"]);
    const second = await h.request("GET", `/projects?limit=2&cursor=${first.body.pagination.nextCursor}`);
    expect(second.body.projects[0].title).toBe("p1");
    const all = await h.request("GET", "/projects?limit=200&sort=createdAt:asc");
    expect(all.body.pagination).toMatchObject({ hasMore: false, nextCursor: null });
    const created = all.body.projects.map((p: { id: string }) => p.id);
    expect(created.slice(-3)).toEqual(ids);
    const after = await h.request("GET", `/projects?createdAfter=${all.body.projects.at(-1).createdAt}`);
    expect(after.body.projects.map((p: { id: string }) => p.id)).toEqual([ids[2]]);
  });

  it("rejects a tampered cursor and a cursor of another query with 400 INVALID_CURSOR", async () => {
    const h = use();
    await h.request("POST", "/projects", { body: { title: "a" } });
    await h.request("POST", "/projects", { body: { title: "b" } });
    const page = await h.request("GET", "/projects?limit=1");
    const cursor: string = page.body.pagination.nextCursor;
    const [payload, signature] = cursor.split(".") as [string, string];
    const forged = `${Buffer.from(JSON.stringify({ v: 1, q: "x", k: [0, "z"] })).toString("base64url")}.${signature}`;
    for (const bad of [forged, `${payload}.AAAA`, "garbage", `${cursor}x`]) {
      await expectError(await h.request("GET", `/projects?limit=1&cursor=${bad}`), 400, "INVALID_CURSOR");
    }
    await expectError(
      await h.request("GET", `/projects?limit=1&sort=createdAt:asc&cursor=${cursor}`),
      400,
      "INVALID_CURSOR",
    );
  });

  it("lists only the projects a restricted key is restricted to", async () => {
    const h = use();
    await h.request("POST", "/projects", { body: { title: "Elsewhere" } });
    const restricted = await h.newKey("full", [h.projectId]);
    const listed = await h.request("GET", "/projects?limit=200", { key: restricted });
    expect(listed.body.projects.map((p: { id: string }) => p.id)).toEqual([h.projectId]);
  });
});
