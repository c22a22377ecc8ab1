import { beforeEach, expect, it } from "vitest";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";
import { newProject } from "../../testing/prompt-fixtures.ts";
import { clearWebhooks, createWebhook } from "../../testing/webhook-fixtures.ts";

describeEachStore("listWebhooks", (use) => {
  beforeEach(() => clearWebhooks(use()));

  it("lists the project's endpoints without their secrets, paging with cursors, newest first by default", async () => {
    const h = use();
    const created = [];
    for (const name of ["a", "b", "c"]) created.push(await createWebhook(h, { name }));
    await createWebhook(h, { name: "elsewhere" }, await newProject(h));
    const first = await h.request("GET", `/projects/${h.projectId}/webhooks?limit=2`);
    expect(first.status).toBe(200);
    expect(first.body.pagination).toMatchObject({ limit: 2, returned: 2, hasMore: true });
    expect(first.body.webhooks.map((w: { name: string }) => w.name)).toEqual(["c", "b"]);
    const next = await h.request(
      "GET",
      `/projects/${h.projectId}/webhooks?limit=2&cursor=${first.body.pagination.nextCursor}`,
    );
    expect(next.body.webhooks.map((w: { name: string }) => w.name)).toEqual(["a"]);
    expect(next.body.pagination).toMatchObject({ hasMore: false, nextCursor: null });
    const { secret, ...withoutSecret } = created[0] as Record<string, unknown>;
    expect(next.body.webhooks[0]).toEqual(withoutSecret);
    expect(JSON.stringify([first.body, next.body])).not.toMatch(new RegExp(created.map((w) => w.secret).join("|")));
  });

  it("honours sort=createdAt:asc and the created range; 400 INVALID_CURSOR for a cursor of another query", async () => {
    const h = use();
    const a = await createWebhook(h, { name: "a" });
    const b = await createWebhook(h, { name: "b" });
    const asc = await h.request("GET", `/projects/${h.projectId}/webhooks?sort=createdAt:asc`);
    expect(asc.body.webhooks.map((w: { id: string }) => w.id)).toEqual([a.id, b.id]);
    const after = await h.request("GET", `/projects/${h.projectId}/webhooks?createdAfter=${b.createdAt}`);
    expect(after.body.webhooks.map((w: { id: string }) => w.id)).toEqual([b.id]);
    const page = await h.request("GET", `/projects/${h.projectId}/webhooks?limit=1`);
    const other = await newProject(h);
    await expectError(
      await h.request("GET", `/projects/${other}/webhooks?limit=1&cursor=${page.body.pagination.nextCursor}`),
      400,
      "INVALID_CURSOR",
    );
  });
});
