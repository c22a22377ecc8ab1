import { expect, it } from "vitest";
import { deployed } from "../../testing/deployment-fixtures.ts";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";
import { createWebhook, webhookPath } from "../../testing/webhook-fixtures.ts";

describeEachStore("deleteWebhook", (use) => {
  it("deletes the endpoint (204) with its delivery log; it is then 404", async () => {
    const h = use();
    const webhook = await createWebhook(h, { url: "http://127.0.0.1:9/hook" });
    const kept = await createWebhook(h, { url: "http://127.0.0.1:9/other" });
    await deployed(h);
    const deliveries = (id: string) =>
      h.store.db.selectFrom("webhookDeliveries").select("id").where("webhookId", "=", id).execute();
    expect(await deliveries(webhook.id)).toHaveLength(1);
    const deleted = await h.request("DELETE", webhookPath(h, webhook.id));
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBe("");
    expect(await deliveries(webhook.id)).toEqual([]);
    expect(await deliveries(kept.id)).toHaveLength(1);
    await expectError(await h.request("GET", webhookPath(h, webhook.id)), 404, "RESOURCE_NOT_FOUND");
    await expectError(await h.request("DELETE", webhookPath(h, webhook.id)), 404, "RESOURCE_NOT_FOUND");
    expect((await h.request("GET", webhookPath(h, kept.id))).status).toBe(200);
  });
});
