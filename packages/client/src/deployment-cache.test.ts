/**
 * The deployment cache against a real Pharos on loopback (fetch, revalidation, refresh, fallback) and against a
 * small server of our own that speaks the documented revalidation (a strong ETag on 200; 304 with no body when
 * If-None-Match matches), whose failures and counts a test can script.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { MAX_REFRESH_INTERVAL_MS, MIN_REFRESH_INTERVAL_MS } from "./deployment-cache.ts";
import { createPharos } from "./pharos.ts";
import { type Answer, startServer, type TestServer } from "./testing/http-server.ts";
import { deployPrompt, type RunningPharos, redeploy, startPharos, waitFor } from "./testing/pharos.ts";
import type { Deployment } from "./types.ts";

let pharos: RunningPharos;
beforeAll(async () => {
  pharos = await startPharos();
});
afterAll(async () => {
  await pharos?.close();
});
let scripted: TestServer | undefined;
afterEach(async () => {
  await scripted?.close();
  scripted = undefined;
});

const textOf = (deployment: Deployment) => {
  const part = deployment.prompt.messages[0]?.content[0];
  return part?.modality === "text" ? part.value : undefined;
};

describe("against Pharos", () => {
  it("serves the latest deployment from memory and picks up a new one on refresh()", async () => {
    const { promptId, environmentId, deployment } = await deployPrompt(pharos.client, pharos.projectId, "v1 {{q}}");
    const sdk = createPharos({ baseUrl: pharos.baseUrl, apiKey: pharos.apiKey });
    const prompt = await sdk.initLatestDeployment({ promptId, deploymentEnvironmentId: environmentId });
    expect(prompt.get().id).toBe(deployment.id);
    expect(textOf(prompt.get())).toBe("v1 {{q}}");
    expect(Object.isFrozen(prompt.get().prompt.messages[0])).toBe(true);
    expect(prompt.status()).toMatchObject({
      stopped: false,
      consecutiveFailures: 0,
      lastError: null,
      source: "server",
    });

    // Unchanged: the server confirms the copy (304), so the very object served stays.
    const held = prompt.get();
    await prompt.refresh();
    expect(prompt.get()).toBe(held);
    expect(prompt.status().lastRefreshed).not.toBeNull();

    const second = await redeploy(pharos.client, promptId, environmentId, "v2 {{q}}");
    await prompt.refresh();
    expect(prompt.get().id).toBe(second.id);
    expect(textOf(prompt.get())).toBe("v2 {{q}}");
    prompt.stop();
    expect(prompt.status().stopped).toBe(true);
  });

  it("keeps serving the last deployment once the server is gone, and says so in status()", async () => {
    const gone = await startPharos();
    const { promptId, environmentId, deployment } = await deployPrompt(gone.client, gone.projectId, "kept {{q}}");
    const sdk = createPharos({ baseUrl: gone.baseUrl, apiKey: gone.apiKey, retry: false });
    const prompt = await sdk.initLatestDeployment({ promptId, deploymentEnvironmentId: environmentId });
    await gone.close();

    await prompt.refresh();

    expect(prompt.get()).toEqual(deployment);
    expect(prompt.status()).toMatchObject({ stopped: false, consecutiveFailures: 1, source: "server" });
    expect(prompt.status().lastError).toBeInstanceOf(Error);
    prompt.stop();
  });

  it("rejects when the first fetch fails and there is no fallback; serves the fallback when there is one", async () => {
    const sdk = createPharos({ baseUrl: pharos.baseUrl, apiKey: pharos.apiKey, retry: false });
    const missing = {
      promptId: "prompt_01JD8Q4M1N0B5ZK3W7X9Y2C4VA",
      deploymentEnvironmentId: "env_01JD8Q4N3Q2D7BN5Y9Z1A4E6XC",
    };
    await expect(sdk.initLatestDeployment(missing)).rejects.toMatchObject({ status: 404 });

    const { deployment } = await deployPrompt(pharos.client, pharos.projectId, "fallback text");
    const prompt = await sdk.initLatestDeployment({ ...missing, fallback: deployment });
    expect(prompt.get()).toEqual(deployment);
    expect(prompt.status()).toMatchObject({ source: "fallback", consecutiveFailures: 1, lastRefreshed: null });
    expect(prompt.status().lastError?.message).toMatch(/404/);
    prompt.stop();
  });
});

/** A GET /deployments that speaks the documented revalidation; `current` is what it serves. */
function revalidatingServer(state: { current: Deployment; failing: boolean }) {
  return startServer((request): Answer => {
    if (state.failing) return { status: 503, body: { error: { code: "INTERNAL_ERROR", message: "down" } } };
    const etag = `"${state.current.id}"`;
    if (request.headers["if-none-match"] === etag) return { status: 304, headers: { ETag: etag } };
    return { status: 200, body: state.current, headers: { ETag: etag, "Cache-Control": "no-cache" } };
  });
}

const DEPLOYMENT: Deployment = {
  id: "deployment_01JD8Q4P4R3E8CP6Z0A2B5F7YD",
  createdAt: 1732197600000,
  updatedAt: 1732197600000,
  createdByUserId: "apikey_01JD8Q2A1B2C3D4E5F6G7H8J9K",
  updatedByUserId: "apikey_01JD8Q2A1B2C3D4E5F6G7H8J9K",
  projectId: "project_01JD8Q4KZ8T6V2M3N4P5Q6R7S8",
  promptId: "prompt_01JD8Q4M1N0B5ZK3W7X9Y2C4VA",
  deploymentEnvironmentId: "env_01JD8Q4N3Q2D7BN5Y9Z1A4E6XC",
  prompt: {
    config: { providerName: "openai", model: "gpt-4o-mini", settings: {} },
    messages: [{ role: "user", content: [{ modality: "text", value: "first" }] }],
    tools: [],
    variables: [],
  },
};
const OPTIONS = { promptId: DEPLOYMENT.promptId, deploymentEnvironmentId: DEPLOYMENT.deploymentEnvironmentId };

describe("revalidation", () => {
  it("sends If-None-Match with the last ETag and treats 304 as unchanged; a 200 replaces the deployment", async () => {
    const state = { current: DEPLOYMENT, failing: false };
    scripted = await revalidatingServer(state);
    const sdk = createPharos({ baseUrl: scripted.origin, apiKey: "k", retry: false });
    const prompt = await sdk.initLatestDeployment(OPTIONS);
    expect(scripted.requests[0]?.headers["if-none-match"]).toBeUndefined();
    expect(scripted.requests[0]?.url).toBe(
      `/v2/deployments?promptId=${OPTIONS.promptId}&deploymentId=latest&deploymentEnvironmentId=${OPTIONS.deploymentEnvironmentId}`,
    );
    const first = prompt.get();

    await prompt.refresh();
    expect(scripted.requests[1]?.headers["if-none-match"]).toBe(`"${DEPLOYMENT.id}"`);
    expect(prompt.get()).toBe(first);
    expect(prompt.status()).toMatchObject({ consecutiveFailures: 0, lastError: null });

    state.current = { ...DEPLOYMENT, id: "deployment_01JD8Q4P4R3E8CP6Z0A2B5F7ZZ" };
    await prompt.refresh();
    expect(prompt.get().id).toBe("deployment_01JD8Q4P4R3E8CP6Z0A2B5F7ZZ");
    await prompt.refresh();
    expect(scripted.requests[3]?.headers["if-none-match"]).toBe('"deployment_01JD8Q4P4R3E8CP6Z0A2B5F7ZZ"');
    prompt.stop();
  });

  it("keeps serving the last deployment while refreshes fail, and recovers", async () => {
    const state = { current: DEPLOYMENT, failing: false };
    scripted = await revalidatingServer(state);
    const sdk = createPharos({ baseUrl: scripted.origin, apiKey: "k", retry: false });
    const prompt = await sdk.initLatestDeployment(OPTIONS);
    const refreshedAt = prompt.status().lastRefreshed;

    state.failing = true;
    await prompt.refresh();
    await prompt.refresh();
    expect(prompt.get().id).toBe(DEPLOYMENT.id);
    expect(prompt.status()).toMatchObject({ consecutiveFailures: 2, lastRefreshed: refreshedAt, source: "server" });
    expect(prompt.status().lastError?.message).toMatch(/503/);

    state.failing = false;
    await prompt.refresh();
    expect(prompt.status()).toMatchObject({ consecutiveFailures: 0, lastError: null });
    prompt.stop();
  });

  it("refreshes in the background every interval until stopped; concurrent refresh() calls share one request", async () => {
    const state = { current: DEPLOYMENT, failing: false };
    scripted = await revalidatingServer(state);
    const sdk = createPharos({ baseUrl: scripted.origin, apiKey: "k", retry: false });
    const prompt = await sdk.initLatestDeployment({ ...OPTIONS, refreshIntervalMs: 20, minRefreshIntervalMs: 20 });
    const server = scripted;
    await waitFor(() => server.requests.length >= 4, "three background refreshes");
    prompt.stop();
    const seen = server.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.requests.length).toBeLessThanOrEqual(seen + 1);

    const before = server.requests.length;
    await Promise.all([prompt.refresh(), prompt.refresh(), prompt.refresh()]);
    expect(server.requests.length).toBe(before + 1);
  });

  it("clamps refreshIntervalMs to 1 s … 10 min unless a test lowers the floor", async () => {
    scripted = await revalidatingServer({ current: DEPLOYMENT, failing: false });
    const sdk = createPharos({ baseUrl: scripted.origin, apiKey: "k", retry: false });
    const intervalOf = async (options: { refreshIntervalMs?: number; minRefreshIntervalMs?: number }) => {
      const prompt = await sdk.initLatestDeployment({ ...OPTIONS, ...options });
      prompt.stop();
      return prompt.status().refreshIntervalMs;
    };
    expect(await intervalOf({})).toBe(60_000);
    expect(await intervalOf({ refreshIntervalMs: 10 })).toBe(MIN_REFRESH_INTERVAL_MS);
    expect(await intervalOf({ refreshIntervalMs: 3_600_000 })).toBe(MAX_REFRESH_INTERVAL_MS);
    expect(await intervalOf({ refreshIntervalMs: 10, minRefreshIntervalMs: 20 })).toBe(20);
  });
});
