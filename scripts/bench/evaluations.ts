/**
 * The evaluation-run benchmark: how long a 1,000-row run takes against the loopback fake provider
 * answering after 50 ms, at the default row concurrency (5) and at 20, on each store, compared with the ideal
 * rows × latency ÷ concurrency. The run's own timeline (startedAt → finishedAt) is the measure; the server
 * runs its embedded worker.
 *
 * Environment: BENCH_EVAL_ROWS (default 1,000), BENCH_EVAL_LATENCY_MS (50), BENCH_EVAL_CONCURRENCY ("5,20").
 */
import { issueKey } from "../../apps/server/src/auth/api-keys.ts";
import { createIdGenerator } from "../../apps/server/src/ids.ts";
import { startFakeProvider } from "../../apps/server/src/testing/fake-provider.ts";
import { rssMb, startPharos } from "./processes.ts";
import { type Database, postgresDatabase, type StoreName, sqliteDatabase } from "./targets.ts";

const envNumbers = (name: string, fallback: number[]) => {
  const value = process.env[name];
  return value ? value.split(",").map(Number) : fallback;
};
const [ROWS = 1000] = envNumbers("BENCH_EVAL_ROWS", [1000]);
const [LATENCY_MS = 50] = envNumbers("BENCH_EVAL_LATENCY_MS", [50]);
const CONCURRENCIES = envNumbers("BENCH_EVAL_CONCURRENCY", [5, 20]);

interface Options {
  stores: StoreName[];
  postgresUrl: string;
  logDir: string;
  log(message: string): void;
}

// biome-ignore lint/suspicious/noExplicitAny: the script reads a few fields of JSON answers; the API is tested elsewhere.
export type Call = (method: string, path: string, body?: unknown) => Promise<any>;

export function client(url: string, key: string): Call {
  return async (method, path, body) => {
    const response = await fetch(`${url}/v2${path}`, {
      method,
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const payload = await response.json();
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(payload)}`);
    return payload;
  };
}

/** Provider record, prompt, dataset of ROWS rows and a latency evaluator (no grading cost to speak of). */
async function prepare(call: Call, providerUrl: string): Promise<string> {
  const { projects } = await call("GET", "/projects");
  const projectId = projects[0].id;
  const provider = await call("POST", "/providers", {
    provider: "openai-compatible",
    displayName: "Fake (bench)",
    baseUrl: `${providerUrl}/v1`,
  });
  const prompt = await call("POST", "/prompts", {
    projectId,
    draft: {
      config: { provider: "openai-compatible", providerId: provider.id, model: "fake-model" },
      messages: [{ role: "user", content: [{ modality: "text", value: "Answer: {{question}}" }] }],
    },
  });
  const dataset = await call("POST", "/datasets", {
    projectId,
    title: "Bench rows",
    columns: [{ name: "question", type: "static" }],
  });
  for (let start = 0; start < ROWS; start += 100) {
    await call("POST", `/datasets/${dataset.id}/rows`, {
      rows: Array.from({ length: Math.min(100, ROWS - start) }, (_, index) => ({
        values: { question: `question number ${start + index}` },
      })),
    });
  }
  await call("POST", `/prompts/${prompt.id}/evaluators`, {
    projectId,
    datasetId: dataset.id,
    title: "Latency",
    config: { type: "latency", operator: "less-than", threshold: 10, unit: "s" },
  });
  return prompt.id;
}

async function timeRun(call: Call, promptId: string) {
  const run = await call("POST", `/prompts/${promptId}/evaluations`, {});
  const path = `/prompts/${promptId}/evaluations/${run.runId}`;
  for (;;) {
    const current = await call("GET", path);
    if (!["queued", "running", "cancelling"].includes(current.status)) {
      if (current.status !== "completed") throw new Error(`run ended ${current.status}: ${current.error}`);
      return {
        ms: current.timeline.finishedAt - current.timeline.startedAt,
        queuedMs: current.timeline.startedAt - current.timeline.submittedAt,
        failedRows: current.progress.failedRows,
      };
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Runs the measurements; returns the table's lines. */
export async function benchEvaluations(options: Options): Promise<string[]> {
  const fake = await startFakeProvider({ latencyMs: LATENCY_MS });
  const lines = [
    "",
    `Evaluation runs: ${ROWS.toLocaleString("en")} rows, loopback provider answering after ${LATENCY_MS} ms, embedded worker`,
    "store     concurrency   run time   ideal (rows×latency÷concurrency)   ratio   rows/s   max in flight   server RSS",
  ];
  try {
    for (const store of options.stores) {
      for (const concurrency of CONCURRENCIES) {
        let database: Database;
        try {
          database = store === "sqlite" ? sqliteDatabase(options.logDir) : await postgresDatabase(options.postgresUrl);
        } catch (error) {
          lines.push(`${store.padEnd(10)}not available: ${(error as Error).message}`);
          break;
        }
        const key = issueKey(createIdGenerator(Date.now)("apiKey")).key;
        const server = await startPharos(
          `eval-${store}-${concurrency}`,
          {
            DATABASE_URL: database.url,
            PHAROS_BOOTSTRAP_API_KEY: key,
            PHAROS_EVALUATION_CONCURRENCY: String(concurrency),
            LOG_LEVEL: "info",
          },
          options.logDir,
        );
        try {
          const call = client(server.url, key);
          const promptId = await prepare(call, fake.url);
          fake.configure({ latencyMs: LATENCY_MS });
          fake.reset();
          options.log(`evaluations: ${store}, concurrency ${concurrency}: running ${ROWS} rows`);
          const measured = await timeRun(call, promptId);
          const ideal = (ROWS * LATENCY_MS) / concurrency;
          lines.push(
            [
              store.padEnd(10),
              String(concurrency).padEnd(14),
              `${(measured.ms / 1000).toFixed(2)} s`.padEnd(11),
              `${(ideal / 1000).toFixed(2)} s`.padEnd(35),
              `${(measured.ms / ideal).toFixed(2)}×`.padEnd(8),
              `${Math.round((ROWS * 1000) / measured.ms)}`.padEnd(9),
              String(fake.maxInFlight).padEnd(16),
              `${rssMb(server.pid).toFixed(0)} MB${measured.failedRows > 0 ? ` (${measured.failedRows} failed rows!)` : ""}`,
            ].join(""),
          );
        } finally {
          await server.stop();
          await database.dispose();
        }
      }
    }
  } finally {
    await fake.close();
  }
  return lines;
}
