/**
 * getDeployment. Its reads (and the authentication of their keys) are served from the read cache: the last tests
 * change the records from a second connection to the same database — a second app, as another replica would, or
 * the CLI's admin services — and expect the very next read through the first app to see the change.
 */

import { expect, it } from "vitest";
import { createApp } from "../../app.ts";
import { adminContext, revokeApiKey } from "../../services/admin/workspaces.ts";
import {
  createEnvironment,
  deploy,
  deployed,
  keyId,
  MISSING_DEPLOYMENT,
  MISSING_ENV,
} from "../../testing/deployment-fixtures.ts";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore, type Harness } from "../../testing/harness.ts";
import { createPrompt, MISSING_PROMPT, newProject } from "../../testing/prompt-fixtures.ts";

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

describeEachStore("getDeployment", (use) => {
  it("answers 400 VALIDATION_ERROR for each malformed query", async () => {
    const h = use();
    const { promptId, environmentId, deploymentId } = await deployed(h);
    const cases: [string, string][] = [
      [`deploymentId=${deploymentId}`, "query.promptId"],
      [`promptId=${promptId}`, "query.deploymentId"],
      [`promptId=${promptId}&deploymentId=newest&deploymentEnvironmentId=${environmentId}`, "query.deploymentId"],
      [`promptId=${promptId}&deploymentId=deployment_short`, "query.deploymentId"],
      [`promptId=${promptId}&deploymentId=${"d".repeat(81)}`, "query.deploymentId"],
      [`promptId=${promptId}&deploymentId=latest`, "query.deploymentEnvironmentId"],
      [`promptId=${promptId}&deploymentId=current`, "query.deploymentEnvironmentId"],
      [`promptId=${promptId}&deploymentId=latest&deploymentEnvironmentId=env_short`, "query.deploymentEnvironmentId"],
      [
        `promptId=${promptId}&deploymentId=${deploymentId}&deploymentEnvironmentId=env_short`,
        "query.deploymentEnvironmentId",
      ],
      [`promptId=prompt_short&deploymentId=${deploymentId}`, "query.promptId"],
    ];
    for (const [query, field] of cases) {
      const reply = await h.request("GET", `/deployments?${query}`);
      await expectError(reply, 400, "VALIDATION_ERROR");
      expect(
        reply.body.error.details.map((d: { field: string }) => d.field),
        query,
      ).toContain(field);
    }
  });

  it("answers 404 RESOURCE_NOT_FOUND for each case of its description", async () => {
    const h = use();
    const { promptId, environmentId, deploymentId } = await deployed(h);
    const other = await deployed(h);
    const secondEnv = await createEnvironment(h);
    const foreignEnv = await createEnvironment(h, await newProject(h));
    const cases = [
      // the prompt does not exist
      `promptId=${MISSING_PROMPT}&deploymentId=${deploymentId}`,
      `promptId=${MISSING_PROMPT}&deploymentId=latest&deploymentEnvironmentId=${environmentId}`,
      // the id names no deployment of this prompt
      `promptId=${promptId}&deploymentId=${MISSING_DEPLOYMENT}`,
      `promptId=${promptId}&deploymentId=${other.deploymentId}`,
      // the id is a deployment of the prompt but in another environment than the one given
      `promptId=${promptId}&deploymentId=${deploymentId}&deploymentEnvironmentId=${secondEnv}`,
      // latest: an unknown environment, one of another project, one the prompt was never deployed to
      `promptId=${promptId}&deploymentId=latest&deploymentEnvironmentId=${MISSING_ENV}`,
      `promptId=${promptId}&deploymentId=latest&deploymentEnvironmentId=${foreignEnv}`,
      `promptId=${promptId}&deploymentId=current&deploymentEnvironmentId=${secondEnv}`,
    ];
    for (const query of cases) {
      await expectError(await h.request("GET", `/deployments?${query}`), 404, "RESOURCE_NOT_FOUND");
    }
  });

  it("keeps environments apart: latest is per environment", async () => {
    const h = use();
    const prompt = await createPrompt(h);
    const staging = await createEnvironment(h);
    const production = await createEnvironment(h);
    const inStaging = await deploy(h, prompt.id, staging);
    const inProduction = await deploy(h, prompt.id, production);
    const latestOf = async (env: string) =>
      (await h.request("GET", `/deployments?promptId=${prompt.id}&deploymentId=latest&deploymentEnvironmentId=${env}`))
        .body.id;
    expect(await latestOf(staging)).toBe(inStaging.id);
    expect(await latestOf(production)).toBe(inProduction.id);
  });

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
  it("tags each answer with a strong ETag of its body and Cache-Control: private, no-cache", async () => {
    const h = use();
    const { byId, latest } = await deployedPrompt(h);
    const read = await h.request("GET", byId);
    const etag = read.headers.get("ETag");
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(read.headers.get("Cache-Control")).toBe("private, no-cache");
    const again = await h.request("GET", latest);
    expect(again.headers.get("ETag")).toBe(etag);
  });

  it("answers 304 with no body when If-None-Match lists the tag, weakly compared, or is *", async () => {
    const h = use();
    const { byId } = await deployedPrompt(h);
    const etag = (await h.request("GET", byId)).headers.get("ETag") as string;
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, "*", ` ${etag} `]) {
      const reply = await h.request("GET", byId, { headers: { "If-None-Match": ifNoneMatch } });
      expect([reply.status, reply.body], ifNoneMatch).toEqual([304, ""]);
      expect(reply.headers.get("ETag")).toBe(etag);
      expect(reply.headers.get("Cache-Control")).toBe("private, no-cache");
      expect(reply.headers.get("Content-Type")).toBeNull();
    }
    for (const ifNoneMatch of ['"other"', etag.slice(1, -1), "", "W/", `${etag.slice(0, -2)}"`]) {
      const reply = await h.request("GET", byId, { headers: { "If-None-Match": ifNoneMatch } });
      expect([reply.status, reply.body.id], ifNoneMatch).toEqual([200, byId.split("deploymentId=")[1]]);
    }
  });

  it("answers 200 with a new tag once a newer deployment is the latest", async () => {
    const h = use();
    const { promptId, environmentId, latest } = await deployedPrompt(h);
    const etag = (await h.request("GET", latest)).headers.get("ETag") as string;
    const newer = await deploy(h, promptId, environmentId);

    const reply = await h.request("GET", latest, { headers: { "If-None-Match": etag } });

    expect([reply.status, reply.body.id]).toEqual([200, newer.id]);
    expect(reply.headers.get("ETag")).not.toBe(etag);
    const confirmed = await h.request("GET", latest, {
      headers: { "If-None-Match": reply.headers.get("ETag") as string },
    });
    expect(confirmed.status).toBe(304);
  });

  it("checks the key and the prompt before it confirms a copy: 401, 403 and 404 as a read", async () => {
    const h = use();
    const { promptId, byId } = await deployedPrompt(h);
    const etag = (await h.request("GET", byId)).headers.get("ETag") as string;
    const otherProject = (await h.request("POST", "/projects", { body: { title: "Elsewhere" } })).body.id;
    const restricted = await h.newKey("ingest-only", [otherProject]);
    const headers = { "If-None-Match": etag };

    await expectError(await h.request("GET", byId, { headers, key: "phk_wrong" }), 401, "AUTHENTICATION_REQUIRED");
    await expectError(await h.request("GET", byId, { headers, key: restricted }), 403, "FORBIDDEN");
    expect((await h.request("DELETE", `/prompts/${promptId}`)).status).toBe(204);
    await expectError(await h.request("GET", byId, { headers }), 404, "RESOURCE_NOT_FOUND");
  });

  it("answers 200 to an If-None-Match that lists no well-formed tag, however long", async () => {
    const h = use();
    const { byId } = await deployedPrompt(h);
    for (const ifNoneMatch of [`"${"a".repeat(8000)}"`, "W/", '"unterminated', ",,,", "\u00e9"]) {
      const reply = await h.request("GET", byId, { headers: { "If-None-Match": ifNoneMatch } });
      expect(reply.status, ifNoneMatch.slice(0, 20)).toBe(200);
    }
  });
});
