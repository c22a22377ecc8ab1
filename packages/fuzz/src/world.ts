/**
 * The server under fuzzing and the resources its requests name. The app is the server's own (`createApp` on
 * a scratch SQLite file or PostgreSQL schema), served over loopback by the Node adapter as `pnpm start` serves
 * it, so requests go through the real HTTP parser; the fuzzer also holds the store, to see what a request wrote.
 *
 * The world is built through the API from the spec's own request examples, with their ids replaced by the
 * world's: a project with an environment, a prompt deployed there, a dataset with columns and rows, an evaluator,
 * a queued evaluation run (no worker runs, so it stays queued), providers answered by a fake on loopback (model
 * listings and runPrompt call it, never a real vendor), a trace with spans; and another workspace with resources
 * of its own.
 * Valid requests then reach past the 404 into the services and the database.
 */
import type { AddressInfo } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import {
  adminContext,
  createApiKey,
  createApp,
  createProjectForWorkspace,
  createWorkspace,
  type Store,
} from "@pharos/server";
import { openScratchStore, startFakeProvider } from "@pharos/server/testing";
import { operationShapes } from "./spec.ts";
import { cloneJson, type Value } from "./values/json-value.ts";

type Ids = Record<string, string>;

export interface World {
  store: Store;
  /** `http://127.0.0.1:PORT/v2` */
  baseUrl: string;
  apiKey: string;
  /** The world's resources by the name the spec gives their ids (`projectId`, `promptId`, …). */
  ids: Readonly<Ids>;
  /** Resources of another workspace by the same names: a request of this workspace must not reach them. */
  otherIds: Readonly<Ids>;
  /** Valid cursors of list operations (this workspace's and another's). */
  cursors: readonly string[];
  /** `value` with every example id of the spec (`prompt_01JD…`) replaced by the world's resource of that kind. */
  substitute(value: unknown, ids?: Ids): Value;
  /**
   * Creates what an operation's valid request uses up or changes for the others (a delete's resource, a run to
   * cancel, a prompt whose draft an update may empty): ids that override `ids` for one case.
   */
  freshIdsFor(operationId: string): Promise<Ids>;
  /** `ids` less those an operation gets fresh: its cases must not name (and so delete) the world's own. */
  idsSafeFor(operationId: string): string[];
  /** Removes what a successful request created that would slow later ones (providers listed by GET /models). */
  cleanUpAfter(operationId: string, status: number, body: unknown): Promise<void>;
  close(): Promise<void>;
}

/** The spec's example ids are a type prefix and a ULID; the name of the id each prefix stands for. */
const EXAMPLE_ID = /^([a-z]+)_[0-9A-HJKMNP-TV-Z]{26}$/;
const NAME_OF_PREFIX: Record<string, string> = {
  project: "projectId",
  env: "deploymentEnvironmentId",
  prompt: "promptId",
  deployment: "deploymentId",
  dataset: "datasetId",
  column: "columnId",
  row: "rowId",
  evaluator: "evaluatorId",
  evalrun: "evaluationId",
  provider: "providerId",
  trace: "traceId",
  span: "spanId",
  webhook: "webhookId",
};

/** The ids each operation gets fresh for every case (world.freshIdsFor). */
const FRESH_NAMES: Record<string, string[]> = {
  deletePrompt: ["promptId"],
  updatePrompt: ["promptId"],
  // The world's environment holds its deployment (a delete is 409): a fresh empty one reaches the 204.
  deleteDeploymentEnvironment: ["deploymentEnvironmentId"],
  deleteEvaluator: ["evaluatorId"],
  updateEvaluator: ["evaluatorId"],
  deleteDataset: ["datasetId"],
  deleteDatasetColumn: ["datasetId", "columnId"],
  deleteDatasetRow: ["rowId"],
  cancelEvaluation: ["evaluationId"],
  deleteProvider: ["providerId"],
  updateProvider: ["providerId"],
  // The world's endpoint keeps its unresolvable URL: test events sent to it must fail fast, never reach out.
  updateWebhook: ["webhookId"],
  deleteWebhook: ["webhookId"],
  rotateWebhookSecret: ["webhookId"],
};

/** Webhook endpoints of the world point at a host that never resolves (RFC 2606), so a test event fails at once. */
const WEBHOOK_URL = "https://pharos-fuzz.invalid/hook";

/**
 * Rate limits out of reach: the fuzzer sends thousands of requests a minute and must see every answer. The
 * largest quota configuration accepts (nine digits, as the RateLimit headers' patterns say).
 */
const MOST = 999_999_999;
const UNLIMITED = { logTraces: MOST, logSpans: MOST, deployments: MOST, other: MOST };

/**
 * A clock that never returns the same millisecond twice, so a write always moves the `updatedAt` the
 * fingerprint reads (fingerprint.ts), even a write in the millisecond of the previous one.
 */
function strictlyIncreasingClock(): () => number {
  let last = 0;
  return () => {
    last = Math.max(Date.now(), last + 1);
    return last;
  };
}

function exampleBody(operationId: string): unknown {
  const example = operationShapes.find((shape) => shape.operationId === operationId)?.body?.examples[0];
  if (example === undefined) throw new Error(`the spec has no request example for ${operationId}`);
  return example;
}

export async function openWorld(databaseUrl: string | undefined): Promise<World> {
  const scratch = await openScratchStore(databaseUrl);
  const store = scratch.store;
  await store.migrate();
  const now = strictlyIncreasingClock();
  const app = await createApp({ store, now, rateLimits: UNLIMITED });
  const server = createAdaptorServer({ fetch: app.fetch });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;
  const fake = await startFakeProvider();

  const admin = adminContext(store, now);
  const keyOf = async (workspaceId: string) =>
    (await createApiKey(admin, { workspaceId, name: "fuzz", role: "full", projectIds: null })).key as string;
  const workspace = await createWorkspace(admin, "Fuzz");
  await createProjectForWorkspace(admin, workspace.id, "Fuzz (first)");
  const apiKey = await keyOf(workspace.id);
  const other = await createWorkspace(admin, "Fuzz (other)");
  await createProjectForWorkspace(admin, other.id, "Elsewhere (first)");
  const otherKey = await keyOf(other.id);

  const substitute = (value: unknown, ids: Ids): Value => {
    const swap = (text: string) => {
      const prefix = EXAMPLE_ID.exec(text)?.[1];
      const name = prefix === undefined ? undefined : NAME_OF_PREFIX[prefix];
      return (name !== undefined && ids[name]) || text;
    };
    const walk = (node: unknown): unknown => {
      if (typeof node === "string") return swap(node);
      if (Array.isArray(node)) return node.map(walk);
      if (node !== null && typeof node === "object") {
        return Object.fromEntries(Object.entries(node).map(([key, item]) => [swap(key), walk(item)]));
      }
      return node;
    };
    return cloneJson(walk(value));
  };

  const ids: Ids = {};
  const otherIds: Ids = {};
  const api = (key: string) => async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`building the fuzz world: ${method} ${path} answered ${response.status} ${text}`);
    return text === "" ? undefined : JSON.parse(text);
  };
  const call = api(apiKey);
  let counter = 0;
  const unique = (text: string) => `${text} ${++counter}`;

  const fromExample = (operationId: string, into: Ids, changes: Record<string, unknown> = {}) => ({
    ...(substitute(exampleBody(operationId), into) as Record<string, Value>),
    ...changes,
  });

  /** The resources of one workspace, from the spec's examples. */
  async function populate(request: typeof call, into: Ids) {
    into.projectId = (await request("POST", "/projects", fromExample("createProject", into))).id;
    const environment = fromExample("createDeploymentEnvironment", into);
    into.deploymentEnvironmentId = (
      await request("POST", `/projects/${into.projectId}/deployment-environments`, environment)
    ).id;
    into.webhookId = (
      await request(
        "POST",
        `/projects/${into.projectId}/webhooks`,
        fromExample("createWebhook", into, { url: WEBHOOK_URL }),
      )
    ).id;
    into.promptId = (await request("POST", "/prompts", fromExample("createPrompt", into))).id;
    into.deploymentId = (
      await request("POST", `/prompts/${into.promptId}/deployments`, fromExample("createDeployment", into))
    ).id;
    const dataset = await request("POST", "/datasets", fromExample("createDataset", into));
    into.datasetId = dataset.id;
    // The last column: the rows of the examples name the others, which an update of this one leaves alone.
    into.columnId = dataset.columns[dataset.columns.length - 1].id;
    const rows = await request("POST", `/datasets/${into.datasetId}/rows`, fromExample("createDatasetRows", into));
    into.rowId = rows.rows[0].id;
    into.evaluatorId = (
      await request("POST", `/prompts/${into.promptId}/evaluators`, fromExample("createEvaluator", into))
    ).id;
    into.evaluationId = (
      await request("POST", `/prompts/${into.promptId}/evaluations`, fromExample("createEvaluation", into))
    ).runId;
    // The example's record (the kind the world's prompt names) answers from the fake on loopback, so runPrompt
    // calls no real vendor: the fuzz run stays off the network.
    await request("POST", "/providers", {
      ...(fromExample("createProvider", into) as object),
      baseUrl: `${fake.url}/v1`,
    });
    const compatible = { provider: "openai-compatible", displayName: "Fake on loopback", baseUrl: `${fake.url}/v1` };
    into.providerId = (await request("POST", "/providers", compatible)).id;
    const trace = await request("POST", "/logs/trace", fromExample("createLogTrace", into));
    into.traceId = trace.traceId;
    into.spanId = (await request("POST", "/logs/span", fromExample("createLogSpan", into))).spanId;
  }
  await populate(call, ids);
  await populate(api(otherKey), otherIds);
  const cursors = await cursorsOf(baseUrl, [apiKey, otherKey]);

  const fresh: Record<string, () => Promise<Ids>> = {
    deletePrompt: async () => ({ promptId: await newPrompt() }),
    updatePrompt: async () => ({ promptId: await newPrompt() }),
    deleteDeploymentEnvironment: async () => ({
      deploymentEnvironmentId: (
        await call(
          "POST",
          `/projects/${ids.projectId}/deployment-environments`,
          fromExample("createDeploymentEnvironment", ids, { name: unique("Doomed") }),
        )
      ).id as string,
    }),
    deleteEvaluator: async () => ({ evaluatorId: await newEvaluator() }),
    updateEvaluator: async () => ({ evaluatorId: await newEvaluator() }),
    deleteDataset: async () => ({ datasetId: (await newDataset()).id }),
    deleteDatasetColumn: async () => {
      const dataset = await newDataset();
      return { datasetId: dataset.id, columnId: dataset.columns[0].id };
    },
    deleteDatasetRow: async () => {
      const rows = await call("POST", `/datasets/${ids.datasetId}/rows`, fromExample("createDatasetRows", ids));
      return { rowId: rows.rows[0].id };
    },
    cancelEvaluation: async () => ({
      evaluationId: (await call("POST", `/prompts/${ids.promptId}/evaluations`, fromExample("createEvaluation", ids)))
        .runId,
    }),
    deleteProvider: async () => ({ providerId: await newProvider() }),
    updateProvider: async () => ({ providerId: await newProvider() }),
    updateWebhook: async () => ({ webhookId: await newWebhook() }),
    deleteWebhook: async () => ({ webhookId: await newWebhook() }),
    rotateWebhookSecret: async () => ({ webhookId: await newWebhook() }),
  };
  const newWebhook = async () =>
    (
      await call(
        "POST",
        `/projects/${ids.projectId}/webhooks`,
        fromExample("createWebhook", ids, { url: WEBHOOK_URL, name: unique("Victim") }),
      )
    ).id as string;
  const newPrompt = async () => (await call("POST", "/prompts", fromExample("createPrompt", ids))).id as string;
  const newEvaluator = async () =>
    (await call("POST", `/prompts/${ids.promptId}/evaluators`, fromExample("createEvaluator", ids))).id as string;
  const newDataset = async () => call("POST", "/datasets", fromExample("createDataset", ids));
  const newProvider = async () =>
    (await call("POST", "/providers", fromExample("createProvider", ids, { displayName: unique("Victim") })))
      .id as string;
  /** Provider records the fuzzer made: removed after their case, with the updates' fresh ones. */
  const providersMade = new Set(["createProvider", "updateProvider"]);
  const webhooksMade = new Set(["createWebhook", "updateWebhook", "rotateWebhookSecret"]);

  return {
    store,
    baseUrl,
    apiKey,
    ids,
    otherIds,
    cursors,
    substitute: (value, overrides = {}) => substitute(value, { ...ids, ...overrides }),
    freshIdsFor: async (operationId) => (await fresh[operationId]?.()) ?? {},
    idsSafeFor: (operationId) =>
      Object.entries(ids)
        .filter(([name]) => !FRESH_NAMES[operationId]?.includes(name))
        .map(([, id]) => id),
    async cleanUpAfter(operationId, status, body) {
      if (status >= 300) return;
      const { id, projectId } = (body ?? {}) as { id?: unknown; projectId?: unknown };
      if (typeof id !== "string") return;
      if (providersMade.has(operationId)) await call("DELETE", `/providers/${id}`);
      // Endpoints the fuzzer made (and the updates' and rotations' fresh ones) would each get a delivery of every
      // later deployment, and an update could point one anywhere: removed after their case.
      if (webhooksMade.has(operationId) && typeof projectId === "string") {
        await call("DELETE", `/projects/${projectId}/webhooks/${id}`);
      }
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await fake.close();
      await scratch.dispose();
    },
  };
}

/** Cursors of the first page of every list the world can page through (two projects per workspace). */
async function cursorsOf(baseUrl: string, keys: string[]): Promise<string[]> {
  const cursors: string[] = [];
  for (const key of keys) {
    const response = await fetch(`${baseUrl}/projects?limit=1`, { headers: { Authorization: `Bearer ${key}` } });
    const { pagination } = (await response.json()) as { pagination?: { nextCursor?: string | null } };
    if (pagination?.nextCursor) cursors.push(pagination.nextCursor);
  }
  return cursors;
}
