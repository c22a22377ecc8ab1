import { expect, it } from "vitest";
import { deployed } from "../../testing/deployment-fixtures.ts";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";
import { clearWebhooks, createWebhook, webhookPath } from "../../testing/webhook-fixtures.ts";

describeEachStore("listWebhookDeliveries", (use) => {
  it("lists the endpoint's deliveries newest first, paging with cursors bound to the endpoint", async () => {
    const h = use();
    await clearWebhooks(h);
    const webhook = await createWebhook(h, { url: "http://127.0.0.1:9/hook" });
    const other = await createWebhook(h, { url: "http://127.0.0.1:9/other" });
    for (let i = 0; i < 3; i++) await deployed(h);
    const first = await h.request("GET", webhookPath(h, webhook.id, "/deliveries?limit=2"));
    expect(first.status).toBe(200);
    expect(first.body.pagination).toMatchObject({ limit: 2, returned: 2, hasMore: true });
    const rest = await h.request(
      "GET",
      webhookPath(h, webhook.id, `/deliveries?limit=2&cursor=${first.body.pagination.nextCursor}`),
    );
    const all = [...first.body.deliveries, ...rest.body.deliveries];
    expect(all).toHaveLength(3);
    expect(all.map((d) => d.createdAt)).toEqual([...all.map((d) => d.createdAt)].sort((a, b) => b - a));
    for (const delivery of all) {
      expect(delivery).toMatchObject({
        webhookId: webhook.id,
        type: "create-deployment",
        status: "pending",
        attempts: [],
        nextAttemptAt: delivery.createdAt,
      });
    }
    await expectError(
      await h.request(
        "GET",
        webhookPath(h, other.id, `/deliveries?limit=2&cursor=${first.body.pagination.nextCursor}`),
      ),
      400,
      "INVALID_CURSOR",
    );
    const since = await h.request("GET", webhookPath(h, webhook.id, `/deliveries?createdAfter=${all[0].createdAt}`));
    expect(since.body.deliveries.map((d: { id: string }) => d.id)).toEqual([all[0].id]);
  });
});
