import { expect, it } from "vitest";
import { adminContext, revokeApiKey } from "../../services/admin/workspaces.ts";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";

describeEachStore("getCurrentApiKey", (use) => {
  it("answers every role with its own key: id, name, role and projects, never the secret", async () => {
    const h = use();
    const full = await h.request("GET", "/api-keys/current");
    expect(full.status).toBe(200);
    expect(full.body).toMatchObject({ role: "full", projectIds: null, expiresAt: null });
    expect(full.body.id).toMatch(/^apikey_/);
    expect(h.key).toContain(full.body.id.replace(/^apikey_/, ""));
    // The secret is what follows `phk_<id>_` (base64url: it may hold "_" itself).
    expect(JSON.stringify(full.body)).not.toContain(h.key.split("_").slice(2).join("_"));

    for (const role of ["read-only", "ingest-only"] as const) {
      const key = await h.newKey(role, [h.projectId]);
      const reply = await h.request("GET", "/api-keys/current", { key });
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({ role, projectIds: [h.projectId] });
      expect(reply.body.id).not.toBe(full.body.id);
      expect(key).toContain(reply.body.id.replace(/^apikey_/, ""));
    }
  });

  it("401 AUTHENTICATION_REQUIRED without a key or with a revoked one", async () => {
    const h = use();
    expectError(await h.request("GET", "/api-keys/current", { key: null }), 401, "AUTHENTICATION_REQUIRED");
    const key = await h.newKey("read-only");
    const { body } = await h.request("GET", "/api-keys/current", { key });
    expect(await revokeApiKey(adminContext(h.store, h.now), body.id)).toBe(true);
    expectError(await h.request("GET", "/api-keys/current", { key }), 401, "AUTHENTICATION_REQUIRED");
  });
});
