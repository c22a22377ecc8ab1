/**
 * Test harness: a real app on a real database. Every behaviour test runs once per adapter — SQLite (a temp
 * file) always, PostgreSQL when PHAROS_TEST_DATABASE_URL is set (each block of a test file in a fresh schema).
 */
import { randomBytes } from "node:crypto";
import pino from "pino";
import { afterAll, beforeAll, describe } from "vitest";
import { type AppOptions, createApp } from "../app.ts";
import type { Role } from "../auth/roles.ts";
import { DEFAULT_EVALUATION_CONFIG } from "../config.ts";
import { createIdGenerator } from "../ids.ts";
import { createSecretBox, type SecretBox } from "../secrets/secret-box.ts";
import {
  adminContext,
  createApiKey,
  createProjectForWorkspace,
  createWorkspace,
} from "../services/admin/workspaces.ts";
import { DEFAULT_WEBHOOK_SETTINGS } from "../services/webhooks/settings.ts";
import { openScratchStore, type ScratchStore } from "../store/scratch.ts";
import type { Store } from "../store/store.ts";
import type { EvaluationWorker, WorkerOptions } from "../worker/evaluation-worker.ts";
import { type DelivererOptions, WebhookDeliverer } from "../worker/webhook-deliverer.ts";

export const postgresUrl = process.env.PHAROS_TEST_DATABASE_URL;

interface Adapter {
  name: "sqlite" | "postgres";
  open(): Promise<ScratchStore>;
}

const sqlite: Adapter = { name: "sqlite", open: () => openScratchStore() };
const postgres = (url: string): Adapter => ({ name: "postgres", open: () => openScratchStore(url) });

/** A fresh store of the adapter with the schema migrated. */
async function openMigrated(adapter: Adapter): Promise<ScratchStore> {
  const opened = await adapter.open();
  await opened.store.migrate();
  return opened;
}

export const adapters: Adapter[] = postgresUrl ? [sqlite, postgres(postgresUrl)] : [sqlite];

export interface Reply<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface Harness {
  store: Store;
  /** Another connection to the harness's database, as a second process (a replica, the CLI) would open. */
  openAnother(): Store;
  app: Awaited<ReturnType<typeof createApp>>;
  workspaceId: string;
  projectId: string;
  /** A full, unrestricted key of the workspace. */
  key: string;
  now: () => number;
  /** The app's credential sealer (workers need the same). */
  secrets: SecretBox;
  /**
   * Starts an evaluation worker on the harness's database, woken when the app queues a run; stopped when the
   * block ends (or by the test). The harness has none until a test starts one, so runs stay queued.
   */
  startWorker(options?: Partial<WorkerOptions>): Promise<EvaluationWorker>;
  /**
   * A webhook deliverer on the harness's database (not started: a test calls `deliverDue()`, with the clock it
   * passes, or `start()`), woken when the app queues deliveries; stopped when the block ends. The harness's
   * app allows loopback endpoints unless the block's options say otherwise.
   */
  newDeliverer(options?: Partial<DelivererOptions>): WebhookDeliverer;
  newKey(role: Role, projectIds?: string[] | null): Promise<string>;
  /** Another workspace with its own full key and project. */
  otherWorkspace(): Promise<{ key: string; projectId: string }>;
  request<T = any>(
    method: string,
    path: string,
    options?: { body?: unknown; key?: string | null; headers?: Record<string, string>; rawBody?: string },
  ): Promise<Reply<T>>;
}

async function createHarness(
  { store, openAnother }: ScratchStore,
  appOptions: Partial<AppOptions>,
  workers: EvaluationWorker[],
  deliverers: WebhookDeliverer[],
): Promise<Harness> {
  let clock = 1_732_190_400_000;
  const now = () => ++clock;
  const admin = adminContext(store, now);
  const secrets = createSecretBox(randomBytes(32));
  const wakeWorkers = () => {
    for (const worker of workers) worker.wake();
  };
  const webhooks = {
    ...DEFAULT_WEBHOOK_SETTINGS,
    allowPrivateAddresses: true,
    ...appOptions.webhooks,
    wake: () => {
      for (const deliverer of deliverers) deliverer.wake();
    },
  };
  const app = await createApp({ ...appOptions, store, now, secrets, wakeWorkers, webhooks });

  const workspace = await createWorkspace(admin, "Test workspace");
  const project = await createProjectForWorkspace(admin, workspace.id, "Default project");
  const newKeyIn = async (workspaceId: string, role: Role, projectIds: string[] | null = null) =>
    (await createApiKey(admin, { workspaceId, name: "test", role, projectIds })).key as string;
  const key = await newKeyIn(workspace.id, "full");

  return {
    store,
    openAnother,
    app,
    workspaceId: workspace.id,
    projectId: project.id,
    key,
    now,
    secrets,
    async startWorker(options = {}) {
      // Imported on demand: most test files never run a worker (and need not load the provider libraries).
      const { EvaluationWorker } = await import("../worker/evaluation-worker.ts");
      const worker = new EvaluationWorker({
        store,
        secrets,
        logger: pino({ level: "silent" }),
        now,
        newId: createIdGenerator(now),
        ...DEFAULT_EVALUATION_CONFIG,
        pollMs: 20,
        api: { allowPrivateAddresses: webhooks.allowPrivateAddresses, timeoutMs: 2000 },
        ...options,
      });
      workers.push(worker);
      worker.start();
      return worker;
    },
    newDeliverer(options = {}) {
      const deliverer = new WebhookDeliverer({
        store,
        secrets,
        logger: pino({ level: "silent" }),
        now,
        allowPrivateAddresses: webhooks.allowPrivateAddresses,
        timeoutMs: 2000,
        pollMs: 20,
        ...options,
      });
      deliverers.push(deliverer);
      return deliverer;
    },
    newKey: (role, projectIds = null) => newKeyIn(workspace.id, role, projectIds),
    async otherWorkspace() {
      const other = await createWorkspace(admin, "Other workspace");
      const otherProject = await createProjectForWorkspace(admin, other.id, "Other project");
      return { key: await newKeyIn(other.id, "full"), projectId: otherProject.id };
    },
    async request(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      const presented = options.key === undefined ? key : options.key;
      if (presented !== null) headers.Authorization = `Bearer ${presented}`;
      let body: string | undefined = options.rawBody;
      if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers["Content-Type"] ??= "application/json";
      }
      const response = await app.request(`/v2${path}`, { method, headers, body });
      const text = await response.text();
      const type = response.headers.get("Content-Type") ?? "";
      return {
        status: response.status,
        headers: response.headers,
        body: type.includes("json") && text ? JSON.parse(text) : text,
      };
    },
  };
}

/**
 * `describe` once per adapter with a fresh database and app for the block. `use()` returns the harness
 * inside tests.
 *
 * A fresh PostgreSQL schema with its migrations takes longer to make than most blocks take to run, so the first
 * block to start opens every adapter's store at once: the next block's is ready, or nearly, when it begins. A
 * store no block took (its block was filtered out) is disposed of when the file ends.
 */
export function describeEachStore(
  name: string,
  body: (use: () => Harness) => void,
  appOptions: Partial<AppOptions> = {},
): void {
  const opening = new Map<Adapter, Promise<ScratchStore>>();
  const taken = new Set<Adapter>();
  const open = (adapter: Adapter) => {
    let store = opening.get(adapter);
    if (!store) {
      store = openMigrated(adapter);
      // Awaited by its block, or disposed of below; never an unhandled rejection in between.
      store.catch(() => {});
      opening.set(adapter, store);
    }
    return store;
  };
  afterAll(async () => {
    const untaken = [...opening].filter(([adapter]) => !taken.has(adapter));
    await Promise.all(untaken.map(async ([, store]) => (await store.catch(() => undefined))?.dispose()));
  });
  describe.each(adapters.map((adapter) => [adapter.name, adapter] as const))(`${name} [%s]`, (_, adapter) => {
    let harness: Harness | undefined;
    let dispose: (() => Promise<void>) | undefined;
    const workers: EvaluationWorker[] = [];
    const deliverers: WebhookDeliverer[] = [];
    beforeAll(async () => {
      for (const other of adapters) open(other);
      taken.add(adapter);
      const opened = await open(adapter);
      dispose = opened.dispose;
      harness = await createHarness(opened, appOptions, workers, deliverers);
    });
    afterAll(async () => {
      await Promise.all([...workers, ...deliverers].map((worker) => worker.stop(0)));
      await dispose?.();
    });
    body(() => {
      if (!harness) throw new Error("harness used outside a test");
      return harness;
    });
  });
}
