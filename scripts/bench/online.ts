/**
 * The continuous-evaluation benchmark (ADR 0016), per store, against the real server with its embedded worker:
 *
 * 1. Ingestion with 100 % of spans asking for evaluation vs without, in the same run: POST /logs/trace of 5
 *    Model spans, all `runEvaluation: true`, naming a prompt that has a deterministic evaluator (text matcher:
 *    every span queued) or a prompt without one (nothing queued), alternated round by round at the same
 *    connections. The queue backs up during the measure (the worker grades in the same process); the target
 *    is ≥ 0.9× the writes per second without.
 *    Before each round's writes without evaluation the queue is drained, so grading left over does not slow
 *    them; the CPU time the server (and its PostgreSQL backends) spend per request each way, grading and its
 *    drain included, is printed too: a steadier measure than rates on a shared machine.
 * 2. The lag from commit to score at a steady 200 spans/s (40 traces of 5 spans a second): `gradedAt −
 *    queuedAt` of every span written, p50 and p99, once the backlog of (1) is drained.
 *
 * Environment: BENCH_ONLINE_CONNECTIONS (default 10), BENCH_ONLINE_LAG_SECONDS (default 10; 3 with --quick).
 */

import { issueKey } from "../../apps/server/src/auth/api-keys.ts";
import { createIdGenerator } from "../../apps/server/src/ids.ts";
import { openStore } from "../../apps/server/src/store/open-store.ts";
import { type Cpu, cpuMs, minus, NO_CPU, plus } from "./cpu.ts";
import type { LoadJob, LoadResult } from "./load.ts";
import { traceBodyTemplate } from "./payload.ts";
import { startLoadGenerator, startPharos } from "./processes.ts";
import { type Database, postgresDatabase, type StoreName, sqliteDatabase } from "./targets.ts";

const CONNECTIONS = Number(process.env.BENCH_ONLINE_CONNECTIONS || 10);

interface Options {
  stores: StoreName[];
  postgresUrl: string;
  logDir: string;
  quick: boolean;
  rounds: number;
  writeSeconds: number;
  log(message: string): void;
}

// biome-ignore lint/suspicious/noExplicitAny: the script reads a few fields of JSON answers; the API is tested elsewhere.
type Call = (method: string, path: string, body?: unknown) => Promise<any>;

function client(url: string, key: string): Call {
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

/** The bench's trace body, its spans naming `promptId` and asking for evaluation. */
function liveTemplate(projectId: string, promptId: string) {
  const MARK = "@@reference@@";
  const template = traceBodyTemplate(projectId, Date.now() - 60_000);
  const body = JSON.parse(`${template.prefix}${MARK}${template.suffix}`);
  for (const span of body.spans) Object.assign(span, { promptId, runEvaluation: true });
  const [prefix, suffix] = JSON.stringify(body).split(MARK) as [string, string];
  return { prefix, suffix };
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0
    ? Number.NaN
    : (sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number);

export async function benchOnline(options: Options): Promise<string[]> {
  const lagSeconds = Number(process.env.BENCH_ONLINE_LAG_SECONDS || (options.quick ? 3 : 10));
  const lines = [
    "",
    `Continuous evaluation: POST /logs/trace of 5 Model spans with runEvaluation, ${CONNECTIONS} connections, ${options.rounds} rounds of ${options.writeSeconds} s each way; lag at 200 spans/s for ${lagSeconds} s`,
    "store     without (req/s)   with 100 % queued (req/s)   ratio (target ≥ 0.9)   lag p50    lag p99    spans graded in lag phase",
  ];
  const loader = startLoadGenerator();
  try {
    for (const store of options.stores) {
      let database: Database;
      try {
        database = store === "sqlite" ? sqliteDatabase(options.logDir) : await postgresDatabase(options.postgresUrl);
      } catch (error) {
        lines.push(`${store.padEnd(10)}not available: ${(error as Error).message}`);
        continue;
      }
      const key = issueKey(createIdGenerator(Date.now)("apiKey")).key;
      const server = await startPharos(
        `online-${store}`,
        { DATABASE_URL: database.url, PHAROS_BOOTSTRAP_API_KEY: key, LOG_LEVEL: "info" },
        options.logDir,
      );
      const reader = openStore(database.url);
      try {
        const call = client(server.url, key);
        const { projects } = await call("GET", "/projects");
        const projectId = projects[0].id as string;
        const graded = await call("POST", "/prompts", { projectId, title: "Graded" });
        const plain = await call("POST", "/prompts", { projectId, title: "Not graded" });
        const dataset = await call("POST", "/datasets", { projectId, title: "Unused" });
        await call("POST", `/prompts/${graded.id}/evaluators`, {
          projectId,
          datasetId: dataset.id,
          title: "Mentions an order",
          config: { type: "text-matcher", operator: "contains-any", value: ["order"] },
        });
        const job = (promptId: string, extra: Partial<LoadJob> = {}): LoadJob => ({
          url: server.url,
          method: "POST",
          path: "/v2/logs/trace",
          headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
          template: liveTemplate(projectId, promptId),
          connections: CONNECTIONS,
          durationSeconds: options.writeSeconds,
          ...extra,
        });
        const pending = async () =>
          Number(
            (
              await reader.db
                .selectFrom("onlineEvaluations")
                .select((eb) => eb.fn.countAll().as("count"))
                .where("state", "<>", "done")
                .executeTakeFirstOrThrow()
            ).count,
          );
        const drain = async (maxMs: number) => {
          const start = Date.now();
          while ((await pending()) > 0 && Date.now() - start < maxMs) await sleep(200);
          return Date.now() - start;
        };
        const cpu = () => cpuMs(server.pid, store === "postgres" ? reader : undefined);
        const results: { without: LoadResult[]; with: LoadResult[] } = { without: [], with: [] };
        const cpuSpent = { without: NO_CPU, with: NO_CPU };
        for (let round = 0; round < options.rounds; round += 1) {
          options.log(`online: ${store}, round ${round + 1}: without, then with evaluation`);
          let before = await cpu();
          results.without.push(await loader.run(job(plain.id)));
          let after = await cpu();
          cpuSpent.without = plus(cpuSpent.without, minus(after, before));
          before = after;
          results.with.push(await loader.run(job(graded.id)));
          // The grading of this round's spans left for later counts here, and must not slow the next round's
          // writes without evaluation (before the last round: the backlog's drain is timed below).
          if (round < options.rounds - 1) await drain(60_000);
          after = await cpu();
          cpuSpent.with = plus(cpuSpent.with, minus(after, before));
        }
        const rate = (runs: LoadResult[]) => runs.reduce((sum, run) => sum + run.okPerSecond, 0) / runs.length;
        const without = rate(results.without);
        const withEvaluation = rate(results.with);
        const okOf = (runs: LoadResult[]) => runs.reduce((sum, run) => sum + run.ok, 0);

        options.log(`online: ${store}: draining the backlog`);
        const drainCpuBefore = await cpu();
        const drainMs = await drain(300_000);
        cpuSpent.with = plus(cpuSpent.with, minus(await cpu(), drainCpuBefore));
        const perRequest = (spent: Cpu, runs: LoadResult[]) => spent.total / okOf(runs);
        const cpuPerRequest = {
          without: perRequest(cpuSpent.without, results.without),
          with: perRequest(cpuSpent.with, results.with),
        };
        const split = (spent: Cpu, runs: LoadResult[]) =>
          store === "postgres"
            ? ` (server ${(spent.server / okOf(runs)).toFixed(1)} + database ${(spent.database / okOf(runs)).toFixed(1)})`
            : "";

        options.log(`online: ${store}: lag at 200 spans/s`);
        const lagStart = Date.now();
        await loader.run(job(graded.id, { connections: 4, overallRate: 40, durationSeconds: lagSeconds }));
        const lagDeadline = Date.now() + 120_000;
        const lagRows = () =>
          reader.db
            .selectFrom("onlineEvaluations")
            .select(["state", "queuedAt", "gradedAt"])
            .where("queuedAt", ">=", lagStart)
            .execute();
        let rows = await lagRows();
        while (rows.some((row) => row.state !== "done") && Date.now() < lagDeadline) {
          await sleep(200);
          rows = await lagRows();
        }
        const lags = rows
          .filter((row) => row.gradedAt !== null)
          .map((row) => Number(row.gradedAt) - Number(row.queuedAt))
          .sort((a, b) => a - b);
        lines.push(
          [
            store.padEnd(10),
            without.toFixed(0).padEnd(18),
            withEvaluation.toFixed(0).padEnd(28),
            `${(withEvaluation / without).toFixed(2)}×`.padEnd(23),
            `${percentile(lags, 50).toFixed(0)} ms`.padEnd(11),
            `${percentile(lags, 99).toFixed(0)} ms`.padEnd(11),
            `${lags.length} of ${rows.length} (backlog of the ingestion measure drained in ${(drainMs / 1000).toFixed(1)} s)`,
            `; CPU per request ${cpuPerRequest.without.toFixed(1)}${split(cpuSpent.without, results.without)} → ${cpuPerRequest.with.toFixed(1)}${split(cpuSpent.with, results.with)} ms (${(cpuPerRequest.with / cpuPerRequest.without).toFixed(2)}×, ${cpuScope(store)}, grading included)`,
          ].join(""),
        );
      } finally {
        await reader.close();
        await server.stop();
        await database.dispose();
      }
    }
  } finally {
    loader.stop();
  }
  return lines;
}

const cpuScope = (store: StoreName) => (store === "postgres" ? "server and its database backends" : "server");

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
