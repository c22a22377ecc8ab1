/**
 * Keys that expire are refused from their expiry on, with a message that says so; a key in use is marked used
 * at most once a minute (apiKeyUsage, which the CLI's `keys list` shows).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { expect, it } from "vitest";
import { adminContext, createApiKey } from "../services/admin/workspaces.ts";
import { expectError } from "../testing/expect-error.ts";
import { describeEachStore, type Harness } from "../testing/harness.ts";

const keyExpiringAt = async (h: Harness, expiresAt: number | null) =>
  (await createApiKey(adminContext(h.store, h.now), {
    workspaceId: h.workspaceId,
    name: "expiring",
    role: "full",
    projectIds: null,
    expiresAt,
  })) as { id: string; key: string };

describeEachStore("API keys", (use) => {
  it("refuse an expired key with 401 saying when it expired, and take one that has not expired yet", async () => {
    const h = use();
    const expired = await keyExpiringAt(h, h.now() - 1);
    const reply = await h.request("GET", "/projects", { key: expired.key });
    await expectError(reply, 401, "AUTHENTICATION_REQUIRED");
    expect(reply.body.error.message).toMatch(/^This API key expired at \d{4}-\d{2}-\d{2}T.*Z; create a new one\.$/);

    const later = await keyExpiringAt(h, h.now() + 3_600_000);
    expect((await h.request("GET", "/projects", { key: later.key })).status).toBe(200);
  });

  it("mark a key used when it is, once a minute at most", async () => {
    const h = use();
    const { id, key } = await keyExpiringAt(h, null);
    const lastUsed = async () =>
      (await h.store.db.selectFrom("apiKeyUsage").select("lastUsedAt").where("keyId", "=", id).executeTakeFirst())
        ?.lastUsedAt;
    expect(await lastUsed()).toBeUndefined();
    expect((await h.request("GET", "/projects", { key })).status).toBe(200);
    for (let attempt = 0; attempt < 50 && (await lastUsed()) === undefined; attempt++) await sleep(20);
    const first = await lastUsed();
    expect(first).toEqual(expect.any(Number));

    // The harness clock moves a millisecond per reading: later requests are within the same minute.
    for (let i = 0; i < 3; i++) expect((await h.request("GET", "/projects", { key })).status).toBe(200);
    await sleep(50);
    expect(await lastUsed()).toBe(first);
  });
});
