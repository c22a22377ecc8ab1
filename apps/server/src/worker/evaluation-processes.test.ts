/**
 * Evaluation runs across real processes: a server killed (SIGKILL) in the middle of a run is restarted on the
 * same database and finishes the run with exactly one result per row; on PostgreSQL, two standalone
 * `pharos worker` processes share one 1,000-row run without evaluating any row twice. The model is the fake
 * provider, a real HTTP server on loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueKey } from "../auth/api-keys.ts";
import { createIdGenerator } from "../ids.ts";
import { type FakeProvider, startFakeProvider } from "../testing/fake-provider.ts";
import { postgresUrl } from "../testing/harness.ts";
import {
  freshPostgresSchema,
  processApi,
  type ServerProcess,
  startServer,
  startWorkerProcess,
  tempDatabaseDir,
} from "../testing/processes.ts";

const files = tempDatabaseDir();
const running = new Set<ServerProcess>();
let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(async () => {
  await Promise.all([...running].map((process) => process.stop("SIGKILL").catch(() => {})));
  await fake.close();
  files.dispose();
});

function track(process: ServerProcess): ServerProcess {
  running.add(process);
  process.exited.then(() => running.delete(process));
  return process;
}

/** A provider record on the fake, a prompt, a dataset of `rows` rows and a cost evaluator; returns the run path. */
async function queueRun(call: ReturnType<typeof processApi>, rows: number): Promise<string> {
  const { projects } = await call("GET", "/projects");
  const projectId = projects[0].id as string;
  const provider = await call("POST", "/providers", {
    provider: "openai-compatible",
    displayName: "Fake",
    baseUrl: `${fake.url}/v1`,
  });
  const prompt = await call("POST", "/prompts", {
    projectId,
    draft: {
      config: { provider: "openai-compatible", providerId: provider.id, model: "fake-model" },
      messages: [{ role: "user", content: [{ modality: "text", value: "{{question}}" }] }],
    },
  });
  const dataset = await call("POST", "/datasets", {
    projectId,
    title: "Rows",
    columns: [{ name: "question", type: "static" }],
  });
  for (let start = 0; start < rows; start += 100) {
    const count = Math.min(100, rows - start);
    await call("POST", `/datasets/${dataset.id}/rows`, {
      rows: Array.from({ length: count }, (_, index) => ({ values: { question: `question ${start + index}` } })),
    });
  }
  await call("POST", `/prompts/${prompt.id}/evaluators`, {
    projectId,
    datasetId: dataset.id,
    title: "Latency",
    config: { type: "latency", operator: "less-than", threshold: 60, unit: "s" },
  });
  const run = await call("POST", `/prompts/${prompt.id}/evaluations`, {});
  return `/prompts/${prompt.id}/evaluations/${run.runId}`;
}

async function waitForRun(
  call: ReturnType<typeof processApi>,
  runPath: string,
  until: (run: any) => boolean,
  timeoutMs = 60_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = await call("GET", runPath);
    if (until(run)) return run;
    if (Date.now() > deadline) throw new Error(`run not there in time: ${JSON.stringify(run)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Every result of the run, walking the pages. */
async function allResults(call: ReturnType<typeof processApi>, runPath: string) {
  const results: any[] = [];
  let cursor: string | null = null;
  do {
    const page: any = await call("GET", `${runPath}/results?limit=200${cursor ? `&cursor=${cursor}` : ""}`);
    results.push(...page.results);
    cursor = page.pagination.nextCursor;
  } while (cursor);
  return results;
}

const targets = [
  ["sqlite", async () => ({ url: files.url(`kill-${Date.now()}.db`), dispose: async () => {} })] as const,
  ...(postgresUrl ? [["postgres", () => freshPostgresSchema(postgresUrl as string)] as const] : []),
];

describe.each(targets)("evaluation runs across processes [%s]", (_, open) => {
  it("finishes a run after the server is SIGKILLed mid-run, with exactly one result per row", async () => {
    const database = await open();
    try {
      fake.configure({ latencyMs: 40 });
      const key = issueKey(createIdGenerator(Date.now)("apiKey")).key;
      const env = {
        DATABASE_URL: database.url,
        PHAROS_BOOTSTRAP_API_KEY: key,
        PHAROS_EVALUATION_CONCURRENCY: "4",
        // A killed worker's rows are taken over once its lease runs out.
        PHAROS_EVALUATION_LEASE_MS: "1500",
      };
      const first = track(startServer(env));
      const firstCall = processApi(await first.ready(), key);
      const runPath = await queueRun(firstCall, 40);
      await waitForRun(firstCall, runPath, (run) => run.progress.completedRows >= 8);
      await first.stop("SIGKILL");

      const second = track(startServer(env));
      const call = processApi(await second.ready(), key);
      const run = await waitForRun(call, runPath, (candidate) => candidate.status !== "running");
      expect(run).toMatchObject({
        status: "completed",
        progress: { totalRows: 40, completedRows: 40, failedRows: 0, percent: 100 },
        metrics: { passRuns: 40, unknownRuns: 0 },
      });
      const results = await allResults(call, runPath);
      expect(results).toHaveLength(40);
      expect(new Set(results.map((result) => result.rowId)).size).toBe(40);
      await second.stop();
    } finally {
      await database.dispose();
    }
  });
});

describe.runIf(postgresUrl)("standalone workers on PostgreSQL", () => {
  it("two `pharos worker` processes share one 1,000-row run and evaluate no row twice", async () => {
    const database = await freshPostgresSchema(postgresUrl as string);
    try {
      fake.configure({ latencyMs: 5 });
      fake.requests.length = 0;
      const key = issueKey(createIdGenerator(Date.now)("apiKey")).key;
      const env = { DATABASE_URL: database.url, PHAROS_BOOTSTRAP_API_KEY: key, PHAROS_WORKER: "off" };
      const server = track(startServer(env));
      const call = processApi(await server.ready(), key);
      const runPath = await queueRun(call, 1000);
      const workers = [
        track(startWorkerProcess({ DATABASE_URL: database.url }, ["--concurrency", "10"])),
        track(startWorkerProcess({ DATABASE_URL: database.url, PHAROS_EVALUATION_CONCURRENCY: "10" })),
      ];
      await Promise.all(workers.map((worker) => worker.ready()));
      const run = await waitForRun(
        call,
        runPath,
        (candidate) => candidate.status !== "queued" && candidate.status !== "running",
        120_000,
      );
      expect(run).toMatchObject({
        status: "completed",
        progress: { totalRows: 1000, completedRows: 1000, failedRows: 0 },
      });
      const results = await allResults(call, runPath);
      expect(results).toHaveLength(1000);
      expect(new Set(results.map((result) => result.rowId)).size).toBe(1000);
      // One model call per row: no row was evaluated twice.
      const calls = fake.requests.filter((request) => request.path.endsWith("/chat/completions"));
      expect(calls).toHaveLength(1000);
      const recorded: number[] = [];
      for (const worker of workers) {
        expect(await worker.stop("SIGTERM")).toEqual({ code: 0, signal: null });
        recorded.push(worker.logs().find((record) => typeof record.recordedRows === "number")?.recordedRows);
      }
      // Both took part.
      expect(recorded.every((count) => count > 0)).toBe(true);
      expect(recorded.reduce((total, count) => total + count, 0)).toBe(1000);
      await server.stop();
    } finally {
      await database.dispose();
    }
    // The run's own wait is bounded above; the default test timeout (20 s) is not enough on a loaded machine.
  }, 180_000);
});
