import { expect, it } from "vitest";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";
import { createProvider } from "../../testing/provider-fixtures.ts";

describeEachStore("deleteProvider", (use) => {
  it("deletes a record with its credentials (204); it is then gone (404)", async () => {
    const h = use();
    const created = await createProvider(h, { credentials: { apiKey: "k" } });
    const path = `/providers/${created.id}`;
    const deleted = await h.request("DELETE", path);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBe("");
    expect(
      await h.store.db.selectFrom("providers").select("id").where("id", "=", created.id).executeTakeFirst(),
    ).toBeUndefined();
    await expectError(await h.request("GET", path), 404, "RESOURCE_NOT_FOUND");
    await expectError(await h.request("PATCH", path, { body: { displayName: "x" } }), 404, "RESOURCE_NOT_FOUND");
    await expectError(await h.request("DELETE", path), 404, "RESOURCE_NOT_FOUND");
  });
});
