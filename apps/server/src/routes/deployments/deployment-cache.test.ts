/**
 * GET /deployments and authentication are served from the read cache: these tests change the records from a
 * second connection to the same database — a second app, as another replica would, or the CLI's admin
 * services — and expect the very next read through the first app to see the change.
 */
import { expect, it } from "vitest";
import { createApp } from "../../app.ts";
import { adminContext, revokeApiKey } from "../../services/admin/workspaces.ts";
import { describeEachStore, type Harness } from "../../testing/harness.ts";
import { deployed, keyId } from "./deployment-fixtures.ts";

/** A deployed prompt and its two reads: by id and latest in its environment. */
async function deployedPrompt(h: Harness) {
  const { promptId, environmentId, deploymentId } = await deployed(h);
  return {
    promptId,
    environmentId,
    byId: `/deployments?promptId=${promptId}&deploymentId=${deploymentId}`,
    latest: `/deployments?promptId=${promptId}&deploymentId=latest&deploymentEnvironmentId=${environmentId}`,
  };
}

/** A second app on another connection to the harness's database: another replica. */
async function replica(h: Harness) {
  const app = await createApp({ store: h.openAnother(), now: h.now, secrets: h.secrets });
  return async (method: string, path: string, body?: unknown) => {
    const response = await app.request(`/v2${path}`, {
      method,
      headers: { Authorization: `Bearer ${h.key}`, "Content-Type": "application/json" },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
}

describeEachStore("deployment reads from the read cache", (use) => {
  it("serves a repeated read from the cache, with the same body", async () => {
    const h = use();
    const { latest } = await deployedPrompt(h);
    const first = await h.request("GET", latest);
    const hits = h.app.readCache.stats.hits;

    const second = await h.request("GET", latest);

    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    // The key and the deployment both came from the cache.
    expect(h.app.readCache.stats.hits - hits).toBe(2);
  });

  it("sees a deployment made through another replica on the next read of latest", async () => {
    const h = use();
    const { promptId, environmentId, latest } = await deployedPrompt(h);
    const before = await h.request("GET", latest);
    await h.request("GET", latest);
    const other = await replica(h);

    const redeployed = await other("POST", `/prompts/${promptId}/deployments`, {
      deploymentEnvironmentId: environmentId,
    });
    const after = await h.request("GET", latest);

    expect(redeployed.status).toBe(201);
    expect(after.body.id).toBe(redeployed.body.id);
    expect(after.body.id).not.toBe(before.body.id);
  });

  it("answers 404 on the next read once another replica deleted the prompt", async () => {
    const h = use();
    const { promptId, byId, latest } = await deployedPrompt(h);
    expect((await h.request("GET", byId)).status).toBe(200);
    expect((await h.request("GET", latest)).status).toBe(200);
    const other = await replica(h);

    expect((await other("DELETE", `/prompts/${promptId}`)).status).toBe(204);

    for (const path of [byId, latest]) {
      const reply = await h.request("GET", path);
      expect(reply.status).toBe(404);
      expect(reply.body.error.code).toBe("RESOURCE_NOT_FOUND");
    }
  });

  it("refuses a key on its next request once the CLI revoked it from another connection", async () => {
    const h = use();
    const { byId } = await deployedPrompt(h);
    const key = await h.newKey("ingest-only");
    expect((await h.request("GET", byId, { key })).status).toBe(200);
    expect((await h.request("GET", byId, { key })).status).toBe(200);
    const cli = h.openAnother();

    expect(await revokeApiKey(adminContext(cli, h.now), keyId(key))).toBe(true);
    const reply = await h.request("GET", byId, { key });

    expect(reply.status).toBe(401);
    expect(reply.body.error.code).toBe("AUTHENTICATION_REQUIRED");
  });

  it("still hides a cached deployment from another workspace (404) and a key restricted to another project (403)", async () => {
    const h = use();
    const { byId, latest } = await deployedPrompt(h);
    const stranger = await h.otherWorkspace();
    const otherProject = (await h.request("POST", "/projects", { body: { title: "Elsewhere" } })).body.id;
    const restricted = await h.newKey("ingest-only", [otherProject]);

    for (const path of [byId, latest]) {
      expect((await h.request("GET", path)).status).toBe(200);
      const hits = h.app.readCache.stats.hits;
      const hidden = await h.request("GET", path, { key: stranger.key });
      const forbidden = await h.request("GET", path, { key: restricted });

      expect(h.app.readCache.stats.hits).toBeGreaterThan(hits);
      expect([hidden.status, hidden.body.error.code]).toEqual([404, "RESOURCE_NOT_FOUND"]);
      expect([forbidden.status, forbidden.body.error.code]).toEqual([403, "FORBIDDEN"]);
    }
  });
});
