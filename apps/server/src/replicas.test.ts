/**
 * Many replicas as one (PostgreSQL): 3 server processes (PHAROS_WORKER=off) and 2 `pharos worker` processes on
 * one database, behind a round-robin proxy on loopback, as a deployment behind a load balancer. Clients retry
 * network errors and 5xx, as the SDK does. Under log writes and two evaluation runs against the fake provider,
 * one server and one worker are SIGKILLed mid-way. Afterwards every acknowledged trace is complete, every run
 * completed with exactly one result per row, and a deployment-read limit sent three times over, spread over the
 * replicas, held across them within ADR 0009's tolerance, its 429s carrying Retry-After and the RateLimit
 * headers. Runs when PHAROS_TEST_DATABASE_URL is set.
 */
import { afterAll, describe, expect, it } from "vitest";
import { issueKey } from "./auth/api-keys.ts";
import { maxBatch, RATE_WINDOW_MS } from "./http/rate-limit.ts";
import { createIdGenerator } from "./ids.ts";
import { adminContext, createApiKey, createProjectForWorkspace, createWorkspace } from "./services/admin/workspaces.ts";
import { openStore } from "./store/open-store.ts";
import { type FakeProvider, startFakeProvider } from "./testing/fake-provider.ts";
import { postgresUrl } from "./testing/harness.ts";
import { freshPostgresSchema, type ServerProcess, startServer, startWorkerProcess } from "./testing/processes.ts";
import { type RoundRobinProxy, startRoundRobinProxy } from "./testing/round-robin-proxy.ts";

const REPLICAS = 3;
/** GET /deployments per workspace and minute; the burst sends three times as many. */
const DEPLOYMENT_LIMIT = 100;
const WRITERS = 4;
/** A writer's pause between traces: a steady load that leaves the 2-core machine to the other tests too. */
const WRITE_PAUSE_MS = 20;
/** Acknowledged traces before the kill, and after it before the writers stop. */
const ACKNOWLEDGED_BEFORE_KILL = 60;
const ACKNOWLEDGED_AFTER_KILL = 40;
const RUNS = 2;
const ROWS = 50;
/** Rows evaluated (of both runs) before the kill: the runs are then under way, far from done. */
const EVALUATED_BEFORE_KILL = 12;
const T0 = 1_732_190_400_000;

if (!postgresUrl) {
  console.log("replicas.test.ts: skipped — 3 servers and 2 workers need PostgreSQL (set PHAROS_TEST_DATABASE_URL).");
}

const running = new Set<ServerProcess>();
function track(process: ServerProcess): ServerProcess {
  running.add(process);
  process.exited.then(() => running.delete(process));
  return process;
}
afterAll(async () => {
  await Promise.all([...running].map((process) => process.stop("SIGKILL").catch(() => {})));
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Reply {
  status: number;
  body: any;
  headers: Headers;
  at: number;
}

/** One request through the proxy, without retries. */
async function once(proxy: RoundRobinProxy, key: string, method: string, path: string, body?: unknown): Promise<Reply> {
  const response = await fetch(`${proxy.url}/v2${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body !== undefined && { "Content-Type": "application/json" }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(20_000),
  });
  const text = await response.text();
  const type = response.headers.get("Content-Type") ?? "";
  return {
    status: response.status,
    body: type.includes("json") ? JSON.parse(text) : text,
    headers: response.headers,
    at: Date.now(),
  };
}

/** As the SDK sends: network errors and 5xx (a killed replica's 502s among them) are retried, with backoff. */
async function send(proxy: RoundRobinProxy, key: string, method: string, path: string, body?: unknown): Promise<Reply> {
  for (let attempt = 1; ; attempt++) {
    try {
      const reply = await once(proxy, key, method, path, body);
      if (reply.status < 500 || attempt >= 30) return reply;
    } catch (error) {
      if (attempt >= 30) throw error;
    }
    await sleep(Math.min(200, 10 * attempt));
  }
}

/** Every item of a log search, following cursors. */
async function searchAll(proxy: RoundRobinProxy, key: string, what: "traces" | "spans", projectId: string) {
  const items: any[] = [];
  let cursor: string | null = null;
  do {
    const page = await send(proxy, key, "POST", `/logs/${what}`, { projectId, limit: 200, ...(cursor && { cursor }) });
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    items.push(...page.body[what]);
    cursor = page.body.pagination.nextCursor;
  } while (cursor);
  return items;
}

async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

/** Trace `i` of writer `w`: 1 to 4 spans; its name says how many. */
function traceBody(projectId: string, w: number, i: number) {
  const spans = 1 + ((w + i) % 4);
  return {
    projectId,
    trace: {
      name: `w${w}-t${i}-spans${spans}`,
      status: "success",
      startedAt: T0 + i,
      endedAt: T0 + i + 100,
      referenceId: `w${w}-t${i}`,
      attributes: { writer: w },
      tags: ["replicas"],
    },
    spans: Array.from({ length: spans }, (_, s) => ({
      name: `span-${s}`,
      status: "success",
      startedAt: T0 + i + s,
      endedAt: T0 + i + s + 10,
      content: { type: "Tool", input: `{"s":${s}}`, output: "{}" },
    })),
  };
}

describe.skipIf(!postgresUrl)("many replicas as one [postgres]", () => {
  let fake: FakeProvider | undefined;
  afterAll(() => fake?.close());

  it("3 servers and 2 workers behind a round-robin proxy lose no acknowledged trace and no row when one of each is SIGKILLed, and share rate limits", {
    timeout: 120_000,
  }, async () => {
    const database = await freshPostgresSchema(postgresUrl as string);
    let proxy: RoundRobinProxy | undefined;
    try {
      fake = await startFakeProvider();
      fake.configure({ latencyMs: 100 });
      const keyA = issueKey(createIdGenerator(Date.now)("apiKey")).key;
      const serverEnv = {
        DATABASE_URL: database.url,
        PHAROS_BOOTSTRAP_API_KEY: keyA,
        PHAROS_WORKER: "off",
        PHAROS_RATE_LIMIT_DEPLOYMENTS: String(DEPLOYMENT_LIMIT),
      };
      // A killed worker's rows are taken over once its lease runs out.
      const workerEnv = {
        DATABASE_URL: database.url,
        PHAROS_EVALUATION_LEASE_MS: "1500",
        PHAROS_EVALUATION_CONCURRENCY: "3",
      };
      const servers = Array.from({ length: REPLICAS }, () => track(startServer(serverEnv)));
      const workers = [0, 1].map(() => track(startWorkerProcess(workerEnv)));
      const [urls] = await Promise.all([
        Promise.all(servers.map((server) => server.ready(60_000))),
        ...workers.map((worker) => worker.ready(60_000)),
      ]);
      proxy = await startRoundRobinProxy(urls);
      const via = proxy;
      const callA = (method: string, path: string, body?: unknown) => send(via, keyA, method, path, body);
      const must = async (method: string, path: string, body?: unknown) => {
        const reply = await callA(method, path, body);
        if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
        return reply.body;
      };

      // Workspace A: a dataset, and a prompt with an evaluator to run over it against the fake provider.
      const projectId = (await must("GET", "/projects")).projects[0].id as string;
      const provider = await must("POST", "/providers", {
        provider: "openai-compatible",
        displayName: "Fake",
        baseUrl: `${fake.url}/v1`,
      });
      const prompt = await must("POST", "/prompts", {
        projectId,
        draft: {
          config: { provider: "openai-compatible", providerId: provider.id, model: "fake-model" },
          messages: [{ role: "user", content: [{ modality: "text", value: "{{question}}" }] }],
        },
      });
      const dataset = await must("POST", "/datasets", {
        projectId,
        title: "Questions",
        columns: [{ name: "question", type: "static" }],
      });
      await must("POST", `/datasets/${dataset.id}/rows`, {
        rows: Array.from({ length: ROWS }, (_, i) => ({ values: { question: `question ${i}` } })),
      });
      await must("POST", `/prompts/${prompt.id}/evaluators`, {
        projectId,
        datasetId: dataset.id,
        title: "Latency",
        config: { type: "latency", operator: "less-than", threshold: 60, unit: "s" },
      });

      // Workspace B reads a deployment: its own rate limit, untouched by A's traffic.
      const admin = adminContext(openStore(database.url));
      let keyB: string;
      let projectB: string;
      try {
        const workspace = await createWorkspace(admin, "Readers");
        projectB = (await createProjectForWorkspace(admin, workspace.id, "Reader project")).id;
        keyB = (await createApiKey(admin, { workspaceId: workspace.id, name: "app", role: "full", projectIds: null }))
          .key as string;
      } finally {
        await admin.store.close();
      }
      const callB = (method: string, path: string, body?: unknown) => send(via, keyB, method, path, body);
      const environment = (await callB("POST", `/projects/${projectB}/deployment-environments`, { name: "Prod" })).body;
      const promptB = (
        await callB("POST", "/prompts", {
          projectId: projectB,
          draft: {
            config: { provider: "openai", model: "gpt-4o-mini" },
            messages: [{ role: "user", content: [{ modality: "text", value: "Hi" }] }],
          },
        })
      ).body;
      expect(
        (await callB("POST", `/prompts/${promptB.id}/deployments`, { deploymentEnvironmentId: environment.id })).status,
      ).toBe(201);

      // Write load: each writer sends traces one after another, with a short pause, until told to stop.
      const acknowledged = new Map<string, number>();
      let stopWriting = false;
      let unexpected: string | undefined;
      const writer = async (w: number) => {
        for (let i = 0; !stopWriting; i++) {
          const body = traceBody(projectId, w, i);
          const reply = await callA("POST", "/logs/trace", body);
          if (reply.status === 200) acknowledged.set(reply.body.traceId, body.spans.length);
          // 409: a retry of a write that the killed server committed but never answered; stored, not acknowledged.
          else if (reply.status !== 409)
            unexpected ??= `POST /logs/trace: ${reply.status} ${JSON.stringify(reply.body)}`;
          await sleep(WRITE_PAUSE_MS);
        }
      };
      const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));

      // Meanwhile, three times workspace B's deployment-read limit, 6 at a time, spread by the proxy.
      const readPath = `/deployments?promptId=${promptB.id}&deploymentId=latest&deploymentEnvironmentId=${environment.id}`;
      const reads: Reply[] = [];
      let sent = 0;
      await Promise.all(
        Array.from({ length: 6 }, async () => {
          while (sent < 3 * DEPLOYMENT_LIMIT) {
            sent++;
            reads.push(await once(via, keyB, "GET", readPath));
          }
        }),
      );

      // Then the runs, which the kill should find under way.
      const runPaths: string[] = [];
      for (let r = 0; r < RUNS; r++) {
        const run = await must("POST", `/prompts/${prompt.id}/evaluations`, {});
        runPaths.push(`/prompts/${prompt.id}/evaluations/${run.runId}`);
      }

      const evaluated = async () => {
        let rows = 0;
        for (const path of runPaths) rows += (await must("GET", path)).progress.completedRows;
        return rows;
      };
      await waitFor("writes and evaluations under way", 30_000, async () =>
        acknowledged.size >= ACKNOWLEDGED_BEFORE_KILL && (await evaluated()) >= EVALUATED_BEFORE_KILL
          ? true
          : undefined,
      );
      const killedServer = servers[1] as ServerProcess;
      const killedWorker = workers[0] as ServerProcess;
      await Promise.all([killedServer.stop("SIGKILL"), killedWorker.stop("SIGKILL")]);
      const evaluatedAtKill = await evaluated();
      const acknowledgedAtKill = acknowledged.size;
      await waitFor("writes after the kill", 30_000, async () =>
        acknowledged.size >= acknowledgedAtKill + ACKNOWLEDGED_AFTER_KILL || unexpected ? true : undefined,
      );
      stopWriting = true;
      await Promise.all(writers);
      expect(unexpected).toBeUndefined();

      // Every run ends completed, with exactly one result per row; the kill left them mid-way.
      expect(evaluatedAtKill).toBeLessThan(RUNS * ROWS);
      for (const path of runPaths) {
        const run = await waitFor("the run to finish", 45_000, async () => {
          const candidate = await must("GET", path);
          return ["queued", "running", "cancelling"].includes(candidate.status) ? undefined : candidate;
        });
        expect(run).toMatchObject({
          status: "completed",
          progress: { totalRows: ROWS, completedRows: ROWS, failedRows: 0 },
        });
        const results: any[] = [];
        let cursor: string | null = null;
        do {
          const page = await must("GET", `${path}/results?limit=200${cursor ? `&cursor=${cursor}` : ""}`);
          results.push(...page.results);
          cursor = page.pagination.nextCursor;
        } while (cursor);
        expect(results).toHaveLength(ROWS);
        expect(new Set(results.map((result) => result.rowId)).size).toBe(ROWS);
      }

      // Every acknowledged trace is there with all its spans; no trace anywhere is partial.
      const traces = await searchAll(via, keyA, "traces", projectId);
      const spanIds = new Set((await searchAll(via, keyA, "spans", projectId)).map((span) => span.id as string));
      const found = new Map(traces.map((trace) => [trace.id as string, trace]));
      for (const [traceId, spans] of acknowledged) {
        expect(found.get(traceId)?.spanIds, traceId).toHaveLength(spans);
      }
      for (const trace of traces) {
        expect(trace.spanIds, trace.name).toHaveLength(Number(/spans(\d)$/.exec(trace.name)?.[1]));
        for (const spanId of trace.spanIds) expect(spanIds.has(spanId), spanId).toBe(true);
      }
      expect(acknowledged.size).toBeGreaterThanOrEqual(ACKNOWLEDGED_BEFORE_KILL + ACKNOWLEDGED_AFTER_KILL);

      // The limit held across the replicas: in each minute window (told by `t`), at most the limit was
      // accepted and, of what was sent in it, no fewer than the limit less what the other replicas held.
      expect(reads.map((read) => read.status).filter((status) => status !== 200 && status !== 429)).toEqual([]);
      const windows = new Map<number, Reply[]>();
      for (const read of reads) {
        const t = Number(/;t=(\d+)$/.exec(read.headers.get("RateLimit") ?? "")?.[1]);
        const windowEnd = Math.round((read.at + t * 1000) / RATE_WINDOW_MS) * RATE_WINDOW_MS;
        windows.set(windowEnd, [...(windows.get(windowEnd) ?? []), read]);
      }
      const tolerance = (REPLICAS - 1) * maxBatch(DEPLOYMENT_LIMIT);
      for (const inWindow of windows.values()) {
        const accepted = inWindow.filter((read) => read.status === 200).length;
        expect(accepted).toBeLessThanOrEqual(DEPLOYMENT_LIMIT);
        expect(accepted).toBeGreaterThanOrEqual(Math.min(inWindow.length, DEPLOYMENT_LIMIT) - tolerance);
      }
      const limited = reads.filter((read) => read.status === 429);
      expect(limited.length).toBeGreaterThanOrEqual(DEPLOYMENT_LIMIT);
      for (const read of limited) {
        const retryAfter = Number(read.headers.get("Retry-After"));
        expect(retryAfter).toBeGreaterThanOrEqual(1);
        expect(retryAfter).toBeLessThanOrEqual(60);
        expect(read.headers.get("RateLimit-Policy")).toBe(`"deployments";q=${DEPLOYMENT_LIMIT};w=60`);
        expect(read.headers.get("RateLimit")).toBe(`"deployments";r=0;t=${retryAfter}`);
      }
      // Each replica accepted some and refused some: the count was theirs together.
      for (const status of [200, 429]) {
        const upstreams = new Set(
          reads.filter((read) => read.status === status).map((read) => read.headers.get("X-Upstream")),
        );
        expect(upstreams.size, `replicas that answered ${status}`).toBe(REPLICAS);
      }

      for (const process of [...servers, ...workers].filter((p) => p !== killedServer && p !== killedWorker)) {
        expect(await process.stop("SIGTERM")).toEqual({ code: 0, signal: null });
      }
    } finally {
      await proxy?.close();
      await Promise.all([...running].map((process) => process.stop("SIGKILL").catch(() => {})));
      await database.dispose();
    }
  });
});
