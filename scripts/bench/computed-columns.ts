/**
 * The computed-column benchmark: how long the `prompt` cells of a 1,000-row dataset take to compute against the
 * loopback fake provider answering after 50 ms, at the default concurrency (5) and at 20, on each store, compared
 * with the ideal rows × latency ÷ concurrency (as the evaluation-run benchmark). Measured from the moment
 * fetchDynamicColumns answers to the last cell's `updatedAt` (one machine, one clock); the server runs its
 * embedded worker. Polling the rows is slow on purpose (every 250 ms) so that it weighs little on the server.
 *
 * Environment: BENCH_EVAL_ROWS (default 1,000), BENCH_EVAL_LATENCY_MS (50), BENCH_EVAL_CONCURRENCY ("5,20").
 */
import { issueKey } from "../../apps/server/src/auth/api-keys.ts";
import { createIdGenerator } from "../../apps/server/src/ids.ts";
import { openStore } from "../../apps/server/src/store/open-store.ts";
import { startFakeProvider } from "../../apps/server/src/testing/fake-provider.ts";
import { cpuMs } from "./cpu.ts";
import { type Call, client } from "./evaluations.ts";
import { rssMb, startPharos } from "./processes.ts";
import { type Database, postgresDatabase, type StoreName, sqliteDatabase } from "./targets.ts";

const envNumbers = (name: string, fallback: number[]) => {
  const value = process.env[name];
  return value ? value.split(",").map(Number) : fallback;
};
const [ROWS = 1000] = envNumbers("BENCH_EVAL_ROWS", [1000]);
const [LATENCY_MS = 50] = envNumbers("BENCH_EVAL_LATENCY_MS", [50]);
const CONCURRENCIES = envNumbers("BENCH_EVAL_CONCURRENCY", [5, 20]);
const POLL_MS = 250;

interface Options {
  stores: StoreName[];
  postgresUrl: string;
  logDir: string;
  log(message: string): void;
}

/** A provider record, a prompt reading `{{question}}`, and a dataset of ROWS rows with a prompt column on it. */
async function prepare(call: Call, providerUrl: string): Promise<{ datasetId: string; columnId: string }> {
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
    columns: [
      { name: "question", type: "static" },
      { name: "answer", type: "prompt", settings: { promptId: prompt.id } },
    ],
  });
  for (let start = 0; start < ROWS; start += 100) {
    await call("POST", `/datasets/${dataset.id}/rows`, {
      rows: Array.from({ length: Math.min(100, ROWS - start) }, (_, index) => ({
        values: { question: `question number ${start + index}` },
      })),
    });
  }
  return { datasetId: dataset.id, columnId: dataset.columns[1].id };
}

/** The computed cells' states, every page of rows. */
async function cellStates(call: Call, datasetId: string, columnId: string) {
  const cells: { status: string; updatedAt: number }[] = [];
  let cursor: string | null = null;
  do {
    const query: string = `limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const page = await call("GET", `/datasets/${datasetId}/rows?columns=${columnId}&${query}`);
    for (const row of page.rows) if (row.computed?.[columnId]) cells.push(row.computed[columnId]);
    cursor = page.pagination.nextCursor;
  } while (cursor);
  return cells;
}

async function timeCells(call: Call, target: { datasetId: string; columnId: string }) {
  const started = Date.now();
  await call("POST", `/datasets/${target.datasetId}/dynamic-columns/fetch`, { columnIds: [target.columnId] });
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    const cells = await cellStates(call, target.datasetId, target.columnId);
    if (cells.length === ROWS && cells.every((cell) => cell.status !== "pending")) {
      return {
        ms: Math.max(...cells.map((cell) => cell.updatedAt)) - started,
        failed: cells.filter((cell) => cell.status === "failed").length,
      };
    }
  }
}

/** Runs the measurements; returns the table's lines. */
export async function benchComputedColumns(options: Options): Promise<string[]> {
  const fake = await startFakeProvider({ latencyMs: LATENCY_MS });
  const lines = [
    "",
    `Computed prompt cells: ${ROWS.toLocaleString("en")} rows, loopback provider answering after ${LATENCY_MS} ms, embedded worker`,
    "store     concurrency   time       ideal (rows×latency÷concurrency)   ratio   cells/s  max in flight   server RSS   CPU per cell (server + database, polling included)",
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
          `cells-${store}-${concurrency}`,
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
          const target = await prepare(call, fake.url);
          fake.configure({ latencyMs: LATENCY_MS });
          fake.reset();
          options.log(`computed columns: ${store}, concurrency ${concurrency}: computing ${ROWS} cells`);
          const reader = store === "postgres" ? openStore(database.url) : undefined;
          const cpuBefore = await cpuMs(server.pid, reader);
          const measured = await timeCells(call, target).catch((error) => {
            throw new Error(`${(error as Error).message}; the server said:\n${server.output()}`);
          });
          const cpuAfter = await cpuMs(server.pid, reader);
          await reader?.close();
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
              `${rssMb(server.pid).toFixed(0)} MB`.padEnd(13),
              `${((cpuAfter.server - cpuBefore.server) / ROWS).toFixed(2)} + ${((cpuAfter.database - cpuBefore.database) / ROWS).toFixed(2)} ms`,
              measured.failed > 0 ? ` (${measured.failed} failed cells!)` : "",
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
