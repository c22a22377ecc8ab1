/**
 * `pnpm bench [--quick] [--stores sqlite,postgres] [--suite logs|evaluations|computed|online|monitor|console]` —
 * the logs API benchmark, the evaluation-run benchmark (evaluations.ts), the computed-column one
 * (computed-columns.ts), continuous evaluation (online.ts), the SDK monitor's (monitor.ts), then the console's
 * first-load size (console.ts) and timings on a big project in Chromium (console-timings.ts). `--suite` runs one
 * of them.
 *
 * Starts the real server (apps/server/dist/main.js, built first as `pnpm start` does) on loopback once per database — a temp SQLite file, and a
 * PostgreSQL database created for the run on 127.0.0.1:5432 (dropped after) — and drives it with autocannon
 * from a separate process, server and load generator each pinned to a core of their own. In the same run it
 * measures two ceilings: (a) a bare Hono route and (v) the POST /logs/trace route with validation only.
 * Rows whose routes the server does not have (yet) print "not available"; the run still exits 0.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore, type Store } from "@pharos/server";
import { benchComputedColumns } from "./computed-columns.ts";
import { benchConsole } from "./console.ts";
import { benchConsoleTimings } from "./console-timings.ts";
import { cpuMs, minus } from "./cpu.ts";
import { benchEvaluations } from "./evaluations.ts";
import { type ExportResult, measureExport, printExport } from "./export.ts";
import type { LoadJob } from "./load.ts";
import { type MetricsResult, measureMetrics, printMetrics } from "./metrics.ts";
import { benchMonitor } from "./monitor.ts";
import { benchOnline } from "./online.ts";
import {
  KEEP_LOGS,
  PARTITION_SPANS,
  POSTGRES_URL,
  quick,
  READ_SECONDS,
  ROUNDS,
  SEED_SPANS,
  stores,
  suites,
  WRITE_SECONDS,
} from "./options.ts";
import { buildServer, pinning, rssMb, startLoadGenerator } from "./processes.ts";
import {
  type Ceiling,
  loadAverage,
  printHeader,
  printLimiterOverhead,
  printMaskingOverhead,
  printOtlpOverhead,
  printTable,
  printTargets,
  processTarget,
  type Row,
  summarize,
} from "./report.ts";
import { measureRetention, printRetention, type RetentionResult } from "./retention.ts";
import {
  ceilingScenarios,
  LIMITER_SCENARIOS,
  PAIRED,
  PAIRED_BLOCKS,
  type Scenario,
  storeScenarios,
} from "./scenarios.ts";
import { rateLimitTakes, type StoreRun, setUpCeilings, setUpStore } from "./setup.ts";
import {
  measurePartitionRetention,
  type PartitionRetentionResult,
  printPartitionRetention,
} from "./span-partitions.ts";
import type { StoreName } from "./targets.ts";

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

async function main() {
  log("building the server bundle (as pnpm start does)");
  buildServer();
  if (suites.includes("logs")) await benchLogs();
  if (suites.includes("evaluations")) {
    const logDir = mkdtempSync(join(tmpdir(), "pharos-bench-eval-"));
    try {
      const lines = await benchEvaluations({ stores, postgresUrl: POSTGRES_URL, logDir, log });
      process.stdout.write(`${lines.join("\n")}\n`);
    } finally {
      rmSync(logDir, { recursive: true, force: true });
    }
  }
  if (suites.includes("computed")) {
    const logDir = mkdtempSync(join(tmpdir(), "pharos-bench-cells-"));
    try {
      const lines = await benchComputedColumns({ stores, postgresUrl: POSTGRES_URL, logDir, log });
      process.stdout.write(`${lines.join("\n")}\n`);
    } finally {
      rmSync(logDir, { recursive: true, force: true });
    }
  }
  if (suites.includes("online")) {
    const logDir = mkdtempSync(join(tmpdir(), "pharos-bench-online-"));
    try {
      const lines = await benchOnline({
        stores,
        postgresUrl: POSTGRES_URL,
        logDir,
        quick,
        rounds: ROUNDS,
        writeSeconds: WRITE_SECONDS,
        log,
      });
      process.stdout.write(`${lines.join("\n")}\n`);
    } finally {
      rmSync(logDir, { recursive: true, force: true });
    }
  }
  if (suites.includes("monitor")) {
    const logDir = mkdtempSync(join(tmpdir(), "pharos-bench-monitor-"));
    try {
      const lines = await benchMonitor({ stores, postgresUrl: POSTGRES_URL, logDir, quick, rounds: ROUNDS, log });
      process.stdout.write(`${lines.join("\n")}\n`);
    } finally {
      rmSync(logDir, { recursive: true, force: true });
    }
  }
  if (suites.includes("console")) {
    process.stdout.write(`${benchConsole(log).join("\n")}\n`);
    process.stdout.write(`${(await benchConsoleTimings(log)).join("\n")}\n`);
  }
}

async function benchLogs() {
  const logDir = mkdtempSync(join(tmpdir(), "pharos-bench-"));
  const cleanups: (() => Promise<void> | void)[] = [
    () => {
      if (KEEP_LOGS) log(`server logs kept in ${logDir}`);
      else rmSync(logDir, { recursive: true, force: true });
    },
  ];
  const loadAtStart = loadAverage();
  const cleanUp = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await Promise.resolve(cleanup()).catch(() => {});
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      log(`${signal}: stopping`);
      void cleanUp().then(() => process.exit(130));
    });
  }

  const startedAt = Date.now();
  try {
    log(
      `${quick ? "quick" : "full"} run: ${ROUNDS} rounds, ${WRITE_SECONDS} s per write/ceiling and ${READ_SECONDS} s per ` +
        `read measurement, ${SEED_SPANS.toLocaleString("en")} seeded spans, stores ${stores.join(", ")}; ` +
        (pinning.enabled
          ? "servers on core 0, load generator on core 1"
          : "no CPU pinning (taskset or 2 cores missing)"),
    );
    const load = startLoadGenerator();
    cleanups.push(() => load.stop());
    const ceilings = await setUpCeilings(logDir, load, (cleanup) => cleanups.push(cleanup));

    const runs: StoreRun[] = [];
    const takesAtStart = new Map<StoreName, number | undefined>();
    const missing = new Map<StoreName, string>();
    for (const store of stores) {
      log(`${store}: starting the server`);
      const run = await setUpStore(store, logDir, load, log);
      if (typeof run === "string") {
        missing.set(store, run);
        log(`${store}: ${run}`);
        continue;
      }
      cleanups.push(() => run.database.dispose());
      cleanups.push(() => run.server.stop());
      if (run.processScope) cleanups.push(() => run.processScope?.server.stop());
      runs.push(run);
    }

    // Counted from here: the set-up's requests and the warm-ups are not the measured load.
    for (const run of runs) {
      if (run.processScope) takesAtStart.set(run.store, await rateLimitTakes(run.database.url));
    }

    const rows = new Map<string, Row>();
    const rowOf = (target: string, scenario: Scenario) => {
      const key = `${target}/${scenario.id}`;
      if (!rows.has(key)) rows.set(key, { target, scenario, samples: [] });
      return rows.get(key) as Row;
    };
    // The CPU the writes take (server process and, on PostgreSQL, its database's backends): steadier than rates.
    const backends = new Map<string, Store>();
    for (const run of runs) {
      if (run.store === "postgres") {
        const opened = openStore(run.database.url);
        backends.set(run.store, opened);
        cleanups.push(() => opened.close());
      }
    }
    const measure = async (target: string, scenario: Scenario, job: LoadJob, pid: number | undefined) => {
      const writes = scenario.kind === "write" || scenario.kind === "otlp";
      const database = backends.get(target);
      const before = writes ? await cpuMs(pid, database) : undefined;
      const result = await load.run(job);
      const cpu = before && minus(await cpuMs(pid, database), before);
      rowOf(target, scenario).samples.push({ ...result, rss: rssMb(pid), cpu });
      if (result.firstFailure) log(`${target} ${scenario.id}: first non-2xx: ${result.firstFailure.slice(0, 200)}`);
    };

    for (let round = 1; round <= ROUNDS; round++) {
      log(`round ${round} of ${ROUNDS}`);
      for (const scenario of ceilingScenarios) {
        const server = scenario.kind === "ceiling-a" ? ceilings.bare : ceilings.validate;
        await measure("ceiling", scenario, ceilings.job(scenario), server.pid);
      }
      // Rotate the order of the databases from round to round.
      const order = runs.map((_, i) => runs[(i + round - 1) % runs.length] as StoreRun);
      for (const run of order) {
        const measureScenario = async (scenario: Scenario) => {
          const job = run.jobs.get(scenario.id);
          const processJob = run.processScope?.jobs.get(scenario.id);
          const measureProcess = async () => {
            if (processJob && run.processScope) {
              await measure(processTarget(run.store), scenario, processJob, run.processScope.server.pid);
            }
          };
          // Shared and process-local limits back to back, first one then the other from round to round.
          if (round % 2 === 0) await measureProcess();
          if (typeof job === "object") await measure(run.store, scenario, job, run.server.pid);
          else rowOf(run.store, scenario).reason = job ?? "not available";
          if (round % 2 === 1) await measureProcess();
        };
        for (const scenario of storeScenarios) {
          if (!PAIRED.includes(scenario.id)) await measureScenario(scenario);
          else if (scenario.id === PAIRED[0]) {
            // The paired rows back to back, in blocks whose order rotates from block to block.
            const paired = PAIRED.map((id) => storeScenarios.find((s) => s.id === id) as Scenario);
            for (let block = 0; block < PAIRED_BLOCKS; block++) {
              const shift = ((round - 1) * PAIRED_BLOCKS + block) % paired.length;
              for (const next of [...paired.slice(shift), ...paired.slice(0, shift)]) await measureScenario(next);
            }
          }
        }
      }
    }
    // (f) one export per database, after the rounds: a long single request, not a load.
    const exports: ExportResult[] = [];
    for (const run of runs) {
      if (!run.exportRequest) continue;
      log(`${run.store}: exporting every seeded span, then every trace`);
      exports.push(await measureExport(run.store, run.exportRequest, run.server.pid, "spans"));
      exports.push(await measureExport(run.store, run.exportRequest, run.server.pid, "traces"));
    }
    // (h) retention last: it deletes half the seeded project.
    const retentions: RetentionResult[] = [];
    for (const run of runs) {
      if (!run.retentionRequest) continue;
      log(`${run.store}: expiring the older half of the seeded spans`);
      retentions.push(await measureRetention(run.store, run.retentionRequest));
    }
    // (h) by rows vs by dropped partitions: a seed of its own in fresh schemas of the run's database.
    const partitionRetentions: PartitionRetentionResult[] = [];
    for (const run of runs) {
      if (run.store === "postgres") {
        log(`${run.store}: expiring ${PARTITION_SPANS.toLocaleString("en")} spans by rows, then by dropped partitions`);
      }
      partitionRetentions.push(
        await measurePartitionRetention(run.store, run.database.url, {
          spans: PARTITION_SPANS,
          idleSeconds: WRITE_SECONDS,
        }),
      );
    }
    // (m), (r) the metrics query over the seeded project and the rollups' write cost, in process (metrics.ts).
    const metrics: MetricsResult[] = [];
    for (const run of runs) {
      log(`${run.store}: measuring metrics`);
      metrics.push(await measureMetrics(run.store, run.database.url, run.searchProjectId, run.seed));
    }
    for (const [store, reason] of missing) {
      for (const scenario of storeScenarios) rowOf(store, scenario).reason = reason;
    }

    // NaN (printed "–") at a connection count the ceilings are not measured at (the flood's).
    const ceiling: Ceiling = (kind, connections) => {
      const scenario = ceilingScenarios.find((s) => s.kind === kind && s.connections === connections);
      return scenario ? summarize(rowOf("ceiling", scenario)).rps : Number.NaN;
    };

    const takes = new Map<StoreName, number | undefined>();
    for (const [store, atStart] of takesAtStart) {
      const run = runs.find((candidate) => candidate.store === store) as StoreRun;
      const atEnd = await rateLimitTakes(run.database.url);
      takes.set(store, atStart === undefined || atEnd === undefined ? undefined : atEnd - atStart);
    }

    printHeader(loadAtStart, runs, ceilings);
    printTable(
      [
        ...ceilingScenarios.map((scenario) => rowOf("ceiling", scenario)),
        ...stores.flatMap((store) => [
          ...storeScenarios.map((scenario) => rowOf(store, scenario)),
          ...(runs.find((run) => run.store === store)?.processScope
            ? storeScenarios
                .filter((scenario) => LIMITER_SCENARIOS.includes(scenario.id))
                .map((scenario) => rowOf(processTarget(store), scenario))
            : []),
        ]),
      ],
      ceiling,
    );
    printLimiterOverhead(runs, rowOf, takes);
    printMaskingOverhead(stores, rowOf);
    printOtlpOverhead(stores, rowOf);
    printExport(exports);
    printRetention(retentions);
    printPartitionRetention(partitionRetentions);
    printMetrics(metrics);
    printTargets(stores, rowOf, ceiling, runs);
    log(`done in ${((Date.now() - startedAt) / 1000).toFixed(0)} s`);
  } finally {
    await cleanUp();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`[bench] failed: ${(error as Error)?.stack ?? error}\n`);
    process.exit(1);
  },
);
