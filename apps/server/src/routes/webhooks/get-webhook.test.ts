import { expect, it } from "vitest";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";
import { newProject } from "../../testing/prompt-fixtures.ts";
import { createWebhook, webhookPath } from "../../testing/webhook-fixtures.ts";

describeEachStore("getWebhook", (use) => {
  it("reads an endpoint without its secret; 404 under another project of the workspace", async () => {
    const h = use();
    const { secret, ...webhook } = await createWebhook(h, { headers: { "X-Token": "t" } });
    const read = await h.request("GET", webhookPath(h, webhook.id));
    expect(read.status).toBe(200);
    expect(read.body).toEqual(webhook);
    expect(JSON.stringify(read.body)).not.toContain(secret);
    await expectError(
      await h.request("GET", webhookPath(h, webhook.id, "", await newProject(h))),
      404,
      "RESOURCE_NOT_FOUND",
    );
  });
});
