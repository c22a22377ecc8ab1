/**
 * A real Pharos for the SDK's tests, on loopback: the server's app on a scratch SQLite database served by
 * @hono/node-server in this process, or the server as a process of its own (to stop and start it again).
 */
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { adminContext, createApiKey, createApp, createProjectForWorkspace, createWorkspace } from "@pharos/server";
import { openScratchStore, type ServerProcess, startServerProcess } from "@pharos/server/testing";
import { createClient, type PharosClient } from "../client.ts";
import { unwrap } from "../errors.ts";
import { paginate } from "../paginate.ts";
import type { Deployment } from "../types.ts";

export interface RunningPharos {
  /** http://127.0.0.1:<port>/v2 */
  baseUrl: string;
  apiKey: string;
  projectId: string;
  client: PharosClient;
  close(): Promise<void>;
}

export async function startPharos(): Promise<RunningPharos> {
  const { store, dispose } = await openScratchStore();
  await store.migrate();
  const admin = adminContext(store);
  const workspace = await createWorkspace(admin, "SDK tests");
  const project = await createProjectForWorkspace(admin, workspace.id, "SDK");
  const { key } = await createApiKey(admin, { workspaceId: workspace.id, name: "sdk", role: "full", projectIds: null });
  const app = await createApp({ store });
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}/v2`;
  const apiKey = key as string;
  return {
    baseUrl,
    apiKey,
    projectId: project.id,
    client: createClient({ baseUrl, apiKey }),
    async close() {
      await new Promise<void>((resolve) => {
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      });
      await dispose();
    },
  };
}

/** A key in the form PHAROS_BOOTSTRAP_API_KEY takes: `phk_<ULID>_<43 base64url characters>`. */
export function newBootstrapKey(): string {
  const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  const random = crypto.getRandomValues(new Uint8Array(24));
  const ulid = `01${[...random].map((byte) => crockford[byte % 32]).join("")}`;
  const secret = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
  return `phk_${ulid}_${secret}`;
}

export interface PharosProcess {
  baseUrl: string;
  apiKey: string;
  projectId: string;
  client: PharosClient;
  process: ServerProcess;
}

/** `apps/server/src/main.ts` as a process on the SQLite `databaseUrl`, on `port` (0: a free one). */
export async function startPharosProcess(databaseUrl: string, apiKey: string, port = 0): Promise<PharosProcess> {
  const process = startServerProcess({
    DATABASE_URL: databaseUrl,
    PHAROS_BOOTSTRAP_API_KEY: apiKey,
    PORT: String(port),
  });
  const url = await process.ready(60_000).catch(async (error) => {
    await process.stop("SIGKILL");
    throw error;
  });
  const baseUrl = `${url.replace(/\/$/, "")}/v2`;
  const client = createClient({ baseUrl, apiKey });
  const { projects } = unwrap(await client.GET("/projects"));
  return { baseUrl, apiKey, projectId: (projects[0] as { id: string }).id, client, process };
}

/** A prompt with `text` as its user message, deployed to a new environment; returns what the cache reads. */
export async function deployPrompt(client: PharosClient, projectId: string, text: string) {
  const prompt = unwrap(
    await client.POST("/prompts", {
      body: {
        projectId,
        title: "Support answer",
        draft: {
          config: { provider: "openai", model: "gpt-4o-mini", settings: { temperature: 0 } },
          messages: [{ role: "user", content: [{ modality: "text", value: text }] }],
        },
      },
    }),
  );
  const environment = unwrap(
    await client.POST("/projects/{projectId}/deployment-environments", {
      params: { path: { projectId } },
      body: { name: `Production ${crypto.randomUUID().slice(0, 8)}` },
    }),
  );
  const deployment = await deploy(client, prompt.id, environment.id);
  return { promptId: prompt.id, environmentId: environment.id, deployment };
}

/** Changes the prompt's user message and deploys the draft again. */
export async function redeploy(client: PharosClient, promptId: string, environmentId: string, text: string) {
  unwrap(
    await client.PATCH("/prompts/{promptId}", {
      params: { path: { promptId } },
      body: { messages: [{ role: "user", content: [{ modality: "text", value: text }] }] },
    }),
  );
  return deploy(client, promptId, environmentId);
}

async function deploy(client: PharosClient, promptId: string, environmentId: string): Promise<Deployment> {
  return unwrap(
    await client.POST("/prompts/{promptId}/deployments", {
      params: { path: { promptId } },
      body: { deploymentEnvironmentId: environmentId },
    }),
  );
}

/** Every trace of the project, read back through the search API. */
export async function tracesOf(client: PharosClient, projectId: string) {
  const traces = [];
  for await (const trace of paginate(client, "POST", "/logs/traces", { body: { projectId, limit: 200 } })) {
    traces.push(trace);
  }
  return traces;
}

/** Every span of the project, read back through the search API. */
export async function spansOf(client: PharosClient, projectId: string) {
  const spans = [];
  for await (const span of paginate(client, "POST", "/logs/spans", { body: { projectId, limit: 200 } })) {
    spans.push(span);
  }
  return spans;
}

/** Polls `condition` every 20 ms until it holds, failing after `timeoutMs`. */
export async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
