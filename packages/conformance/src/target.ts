/**
 * The Pharos under test. In-process by default: a fresh app on a temp SQLite file (or a fresh PostgreSQL
 * schema when PHAROS_CONFORMANCE_DATABASE_URL is set), reached through `app.fetch`. A real server when
 * PHAROS_BASE_URL and PHAROS_API_KEY are set: its project is found or created through the API, and checks that
 * need keys of other roles or workspaces are skipped with a reason.
 *
 * Every client the kit hands out validates every response against the spec (validator.ts), so no test can
 * forget to.
 */

import { randomBytes } from "node:crypto";
import { createClient, type Middleware, type PharosClient, paginate, unwrap } from "@pharos/client";
import {
  adminContext,
  createApiKey,
  createApp,
  createIdGenerator,
  createProjectForWorkspace,
  createSecretBox,
  createWorkspace,
  DEFAULT_EVALUATION_CONFIG,
  EvaluationWorker,
} from "@pharos/server";
import { openScratchStore } from "@pharos/server/testing";
import pino from "pino";
import { afterAll, beforeAll } from "vitest";
import { operationForRoute } from "./spec.ts";
import { ConformanceError, checkResponse } from "./validator.ts";

export type Role = "full" | "read-only" | "ingest-only";

/** What the kit can do only in-process, where it holds the database. */
export interface Admin {
  /** A new key of the target's workspace with this role, optionally restricted to some projects. */
  newKey(role: Role, projectIds?: string[] | null): Promise<string>;
  /** Another workspace with its own full key and project. */
  otherWorkspace(): Promise<{ key: string; projectId: string }>;
  /**
   * Starts an evaluation worker on the target's database (none runs until a test file asks: most scenarios
   * need runs to stay queued). It stops with the target.
   */
  startEvaluationWorker(options?: { concurrency?: number }): void;
}

export interface Target {
  mode: "in-process" | "remote";
  /** The full, unrestricted key the kit runs with. */
  apiKey: string;
  /** A project of the key's workspace to create resources in. */
  projectId: string;
  /** A validating client with the kit's key. */
  client: PharosClient;
  /** A validating client with another key, or none (`null`). */
  clientWithKey(apiKey: string | null): PharosClient;
  /** In-process only. */
  admin: Admin | undefined;
  close(): Promise<void>;
}

/** A status an operation answered, recorded by the validating middleware (per test file: useTarget starts it afresh). */
export const observed = new Map<string, Set<number>>();

export const validatingMiddleware: Middleware = {
  async onResponse({ request, response, schemaPath }) {
    const operation = operationForRoute(request.method, schemaPath);
    if (!operation) throw new Error(`${request.method} ${schemaPath} is not an operation of the spec`);
    const problems = await checkResponse(operation, response, request);
    const statuses = observed.get(operation.operationId) ?? new Set<number>();
    observed.set(operation.operationId, statuses.add(response.status));
    if (problems.length > 0) throw new ConformanceError(operation.operationId, response.status, problems);
    return undefined;
  },
};

type FetchLike = (request: Request) => Promise<Response>;

function validatingClient(baseUrl: string, apiKey: string | null, fetch: FetchLike): PharosClient {
  // No retries: the kit must see every answer the server gives, 5xx included.
  const client = createClient({ baseUrl, apiKey, fetch, retry: false });
  client.use(validatingMiddleware);
  return client;
}

const CONFORMANCE_PROJECT = "Conformance kit";

export async function openTarget(): Promise<Target> {
  const baseUrl = process.env.PHAROS_BASE_URL;
  const apiKey = process.env.PHAROS_API_KEY;
  if (baseUrl && apiKey) return openRemoteTarget(baseUrl, apiKey);
  if (baseUrl || apiKey) throw new Error("Set both PHAROS_BASE_URL and PHAROS_API_KEY, or neither (in-process).");
  return openInProcessTarget();
}

async function openRemoteTarget(baseUrl: string, apiKey: string): Promise<Target> {
  const fetch: FetchLike = (request) => globalThis.fetch(request);
  const client = validatingClient(baseUrl, apiKey, fetch);
  let projectId: string | undefined;
  for await (const project of paginate(client, "GET", "/projects", { params: { query: { limit: 200 } } })) {
    if (project.title === CONFORMANCE_PROJECT) {
      projectId = project.id;
      break;
    }
  }
  projectId ??= unwrap(await client.POST("/projects", { body: { title: CONFORMANCE_PROJECT } })).id;
  return {
    mode: "remote",
    apiKey,
    projectId,
    client,
    clientWithKey: (key) => validatingClient(baseUrl, key, fetch),
    admin: undefined,
    close: async () => {},
  };
}

/** A fresh in-process app on its own database, and a way to run evaluation workers beside it. */
export async function openInProcessApp() {
  const { store, dispose } = await openScratchStore(process.env.PHAROS_CONFORMANCE_DATABASE_URL);
  await store.migrate();
  const secrets = createSecretBox(randomBytes(32));
  const workers: EvaluationWorker[] = [];
  const app = await createApp({
    store,
    secrets,
    wakeWorkers: () => {
      for (const worker of workers) worker.wake();
    },
  });
  const startWorker = (options: { concurrency?: number } = {}) => {
    const worker = new EvaluationWorker({
      store,
      secrets,
      logger: pino({ level: "silent" }),
      now: Date.now,
      newId: createIdGenerator(Date.now),
      ...DEFAULT_EVALUATION_CONFIG,
      ...options,
      pollMs: 20,
    });
    workers.push(worker);
    worker.start();
  };
  const close = async () => {
    await Promise.all(workers.map((worker) => worker.stop(0)));
    await dispose();
  };
  return { store, app, startWorker, close };
}

async function openInProcessTarget(): Promise<Target> {
  const { store, app, startWorker, close } = await openInProcessApp();
  const context = adminContext(store);
  const fetch: FetchLike = async (request) => app.fetch(request);
  const baseUrl = "http://pharos.conformance/v2";

  const newKeyIn = async (workspaceId: string, role: Role, projectIds: string[] | null = null) =>
    (await createApiKey(context, { workspaceId, name: `conformance ${role}`, role, projectIds })).key as string;
  const workspace = await createWorkspace(context, "Conformance");
  const project = await createProjectForWorkspace(context, workspace.id, CONFORMANCE_PROJECT);
  const apiKey = await newKeyIn(workspace.id, "full");

  return {
    mode: "in-process",
    apiKey,
    projectId: project.id,
    client: validatingClient(baseUrl, apiKey, fetch),
    clientWithKey: (key) => validatingClient(baseUrl, key, fetch),
    admin: {
      newKey: (role, projectIds = null) => newKeyIn(workspace.id, role, projectIds),
      async otherWorkspace() {
        const other = await createWorkspace(context, "Conformance (other)");
        const otherProject = await createProjectForWorkspace(context, other.id, "Elsewhere");
        return { key: await newKeyIn(other.id, "full"), projectId: otherProject.id };
      },
      startEvaluationWorker: startWorker,
    },
    close,
  };
}

/** Opens the target once for the calling test file; `use()` returns it inside tests. */
export function useTarget(): () => Target {
  let target: Target | undefined;
  beforeAll(async () => {
    // Test files share their modules (vitest.config.ts: isolate false): each file's statuses are its own.
    observed.clear();
    target = await openTarget();
  });
  afterAll(async () => {
    await target?.close();
  });
  return () => {
    if (!target) throw new Error("the target is used outside a test");
    return target;
  };
}
