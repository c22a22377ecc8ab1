/**
 * `pnpm bench [--quick] [--stores sqlite,postgres] [--suite logs|evaluations]` — the logs benchmark of issue 5,
 * then the evaluation-run benchmark of issue 6 (evaluations.ts). `--suite` runs one of them only.
 *
 * Starts the real server (apps/server/dist/main.js, built first as `pnpm start` does) on loopback once per database — a temp SQLite file, and a
 * PostgreSQL database created for the run on 127.0.0.1:5432 (dropped after) — and drives it with autocannon
 * from a separate process, server and load generator each pinned to a core of their own. In the same run it
 * measures two ceilings: (a) a bare Hono route and (v) the POST /logs/trace route with validation only.
 *
 * Measured, in interleaved rounds (median of the rounds):
 * (b) POST /logs/trace (one trace with 5 Model spans, ~14 KB) at 1, 10 and 50 connections and at 1,000 req/s
 *     offered;
 * (c) POST /logs/traces and /logs/spans over a project seeded with BENCH_SPANS spans, with a time range, a
 *     name substring and an attribute filter: first page and page 50 (reached by following cursors);
 * (d) GET /deployments by id and by `latest`.
 * Rows whose routes the server does not have (yet) print "not available"; the run still exits 0.
 *
 * Environment: BENCH_SPANS (default 1,000,000; 100,000 with --quick), BENCH_ROUNDS (3), BENCH_DURATION
 * (seconds per write/ceiling measurement; reads take half), BENCH_POSTGRES_URL (an admin connection,
 * default postgres://postgres@127.0.0.1:5432/postgres), BENCH_LOG_LEVEL (the server's LOG_LEVEL, default info).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, cpus, tmpdir } from "node:os";
import { join } from "node:path";
import type { components } from "@pharos/contract";
import { createIdGenerator, openStore } from "@pharos/server";
import { issueKey } from "../../apps/server/src/auth/api-keys.ts";
import { benchEvaluations } from "./evaluations.ts";
import type { LoadJob, LoadResult } from "./load.ts";
import { SPANS_PER_TRACE, templateBytes, traceBodyTemplate } from "./payload.ts";
import {
  buildServer,
  type LoadGenerator,
  pinning,
  rssMb,
  type ServerHandle,
  startCeiling,
  startLoadGenerator,
  startPharos,
} from "./processes.ts";
import { SEED_DAYS, type SeedResult, seedSpans } from "./seed.ts";
import {
  analyzePostgres,
  type Database,
  DEFAULT_POSTGRES_URL,
  postgresDatabase,
  type StoreName,
  sqliteDatabase,
} from "./targets.ts";

// ---------------------------------------------------------------------------------------------------------
// Options

const args = process.argv.slice(2);
const quick = args.includes("--quick");
const storesArg = args.find((arg) => arg.startsWith("--stores"));
const storesValue = storesArg?.includes("=") ? storesArg.split("=")[1] : storesArg && args[args.indexOf(storesArg) + 1];
const stores = (storesValue ?? "sqlite,postgres").split(",").filter(Boolean) as StoreName[];
const suiteIndex = args.indexOf("--suite");
const suites = suiteIndex >= 0 ? [args[suiteIndex + 1]] : ["logs", "evaluations"];
if (args.includes("--help") || suites.some((suite) => suite !== "logs" && suite !== "evaluations")) {
  process.stdout.write(
    "usage: pnpm bench [--quick] [--stores sqlite,postgres] [--suite logs|evaluations]  (see README, Benchmarks)\n",
  );
  process.exit(0);
}
const envNumber = (name: string, fallback: number) => {
  const value = process.env[name];
  return value === undefined || value === "" ? fallback : Number(value);
};
const SEED_SPANS = envNumber("BENCH_SPANS", quick ? 60_000 : 1_000_000);
const ROUNDS = envNumber("BENCH_ROUNDS", 3);
const WRITE_SECONDS = envNumber("BENCH_DURATION", quick ? 1 : 10);
const READ_SECONDS = Math.max(1, WRITE_SECONDS / 2);
const WARMUP_SECONDS = quick ? 0.5 : 2;
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL || DEFAULT_POSTGRES_URL;
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL || "info";
const KEEP_LOGS = process.env.BENCH_KEEP_LOGS === "1";
const PAGE = 50;
const UNLIMITED = "999999999";

type Schemas = components["schemas"];

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

// ---------------------------------------------------------------------------------------------------------
// Talking to a server

interface Reply {
  status: number;
  body: unknown;
  text: string;
}

async function call(base: string, key: string, method: string, path: string, body?: unknown): Promise<Reply> {
  for (let attempt = 1; ; attempt++) {
    let response: Response;
    try {
      response = await fetch(`${base}/v2${path}`, {
        method,
        headers: { Authorization: `Bearer ${key}`, ...(body !== undefined && { "Content-Type": "application/json" }) },
        ...(body !== undefined && { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(120_000),
      });
    } catch (error) {
      // A keep-alive connection the server closed as it was reused: try again, twice.
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      if (attempt < 3 && (error as Error).name !== "TimeoutError") continue;
      throw new Error(
        `${method} ${path}: ${(error as Error).message} (${cause?.code ?? cause?.message ?? "no cause"})`,
      );
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: response.status, body: parsed, text };
  }
}

async function must<T>(reply: Promise<Reply>, what: string): Promise<T> {
  const { status, text, body } = await reply;
  if (status < 200 || status > 299) throw new Error(`${what}: ${status} ${text.slice(0, 300)}`);
  return body as T;
}

/** Why a probe says an operation cannot be measured, or undefined when it answered 2xx. */
function unavailable(reply: Reply): string | undefined {
  if (reply.status >= 200 && reply.status <= 299) return undefined;
  const error = (reply.body as { error?: Schemas["Error"]["error"] } | undefined)?.error;
  if (reply.status === 404 && error?.message === "No such operation.") return "not available";
  return `not available (probe: ${reply.status} ${error?.code ?? reply.text.slice(0, 80)})`;
}

// ---------------------------------------------------------------------------------------------------------
// Scenarios

type Kind = "ceiling-a" | "ceiling-v" | "write" | "search" | "deployment";

interface Scenario {
  id: string;
  kind: Kind;
  label: string;
  connections: number;
  rate?: number;
  seconds: number;
  /** Spans stored per 2xx response. */
  spansPerRequest?: number;
}

const ceilingScenarios: Scenario[] = [1, 10, 50].flatMap((connections) => [
  {
    id: `a.c${connections}`,
    kind: "ceiling-a" as const,
    label: "(a) bare Hono GET",
    connections,
    seconds: WRITE_SECONDS,
  },
  {
    id: `v.c${connections}`,
    kind: "ceiling-v" as const,
    label: "(v) POST /logs/trace validate only",
    connections,
    seconds: WRITE_SECONDS,
  },
]);

const storeScenarios: Scenario[] = [
  ...[1, 10, 50].map((connections) => ({
    id: `b.c${connections}`,
    kind: "write" as const,
    label: "(b) POST /logs/trace",
    connections,
    seconds: WRITE_SECONDS,
    spansPerRequest: SPANS_PER_TRACE,
  })),
  {
    id: "b.r1000",
    kind: "write",
    label: "(b) POST /logs/trace @1000/s offered",
    connections: 50,
    rate: 1_000,
    seconds: WRITE_SECONDS,
    spansPerRequest: SPANS_PER_TRACE,
  },
  { id: "c.traces.p1", kind: "search", label: "(c) POST /logs/traces page 1", connections: 1, seconds: READ_SECONDS },
  { id: "c.traces.pN", kind: "search", label: "(c) POST /logs/traces page 50", connections: 1, seconds: READ_SECONDS },
  { id: "c.spans.p1", kind: "search", label: "(c) POST /logs/spans page 1", connections: 1, seconds: READ_SECONDS },
  { id: "c.spans.pN", kind: "search", label: "(c) POST /logs/spans page 50", connections: 1, seconds: READ_SECONDS },
  { id: "d.id", kind: "deployment", label: "(d) GET /deployments by id", connections: 10, seconds: READ_SECONDS },
  {
    id: "d.latest",
    kind: "deployment",
    label: "(d) GET /deployments latest",
    connections: 10,
    seconds: READ_SECONDS,
  },
];

/** One server under test, set up and probed. */
interface StoreRun {
  store: StoreName;
  database: Database;
  server: ServerHandle;
  /** scenario id → the job, or the reason it cannot run. */
  jobs: Map<string, LoadJob | string>;
  seed?: SeedResult;
  /** The server's RSS right after it started listening, MB. */
  idleRss: number;
  /** Which page the "page 50" rows reached (fewer when the seed has fewer matches). */
  pages: { traces?: number; spans?: number };
}

/** Follows cursors from page 1 to page `page` (or the last page); returns the body of that page's request. */
async function bodyOfPage(
  server: ServerHandle,
  key: string,
  path: string,
  query: Record<string, unknown>,
  page: number,
): Promise<{ body: Record<string, unknown>; page: number }> {
  let body: Record<string, unknown> = { ...query };
  for (let reached = 1; reached < page; reached++) {
    const reply = await must<Schemas["LogTraceList"]>(
      call(server.url, key, "POST", path, body),
      `${path} page ${reached}`,
    );
    if (!reply.pagination?.hasMore) return { body, page: reached };
    body = { ...query, cursor: reply.pagination.nextCursor };
  }
  return { body, page };
}

async function setUpStore(store: StoreName, logDir: string, load: LoadGenerator): Promise<StoreRun | string> {
  let database: Database;
  try {
    database = store === "sqlite" ? sqliteDatabase(logDir) : await postgresDatabase(POSTGRES_URL);
  } catch (error) {
    const where = POSTGRES_URL.replace(/:[^:@/]*@/, ":***@");
    log(`postgres: cannot create a database through ${where}: ${(error as Error).message}`);
    return `not available (no PostgreSQL at ${new URL(POSTGRES_URL).host})`;
  }
  const key = issueKey(createIdGenerator(Date.now)("apiKey")).key;
  let server: ServerHandle;
  try {
    server = await startPharos(
      `pharos-${store}`,
      {
        DATABASE_URL: database.url,
        PHAROS_BOOTSTRAP_API_KEY: key,
        PHAROS_RATE_LIMIT_LOG_TRACES: UNLIMITED,
        PHAROS_RATE_LIMIT_LOG_SPANS: UNLIMITED,
        PHAROS_RATE_LIMIT_DEPLOYMENTS: UNLIMITED,
        PHAROS_RATE_LIMIT_OTHER: UNLIMITED,
        LOG_LEVEL,
      },
      logDir,
    );
  } catch (error) {
    await database.dispose().catch(() => {});
    throw error;
  }
  const run: StoreRun = { store, database, server, jobs: new Map(), pages: {}, idleRss: rssMb(server.pid) };
  const auth = { Authorization: `Bearer ${key}`, "Content-Type": "application/json" };

  // The bootstrap project takes the writes; a second project holds the seeded spans.
  const projects = await must<Schemas["ProjectList"]>(call(server.url, key, "GET", "/projects"), "list projects");
  const ingestProjectId = (projects.projects[0] as Schemas["Project"]).id;
  const searchProject = await must<Schemas["Project"]>(
    call(server.url, key, "POST", "/projects", { title: "Search" }),
    "create project",
  );

  // (b) writes
  const template = traceBodyTemplate(ingestProjectId, Date.now() - 60_000);
  const probe = await call(
    server.url,
    key,
    "POST",
    "/logs/trace",
    JSON.parse(`${template.prefix}probe${template.suffix}`),
  );
  const writeProblem = unavailable(probe);
  for (const scenario of storeScenarios.filter((s) => s.kind === "write")) {
    run.jobs.set(
      scenario.id,
      writeProblem ?? {
        url: server.url,
        method: "POST",
        path: "/v2/logs/trace",
        headers: auth,
        template,
        connections: scenario.connections,
        durationSeconds: scenario.seconds,
        ...(scenario.rate && { overallRate: scenario.rate }),
      },
    );
  }

  // (c) search over the seeded project
  const searchProblems = {
    traces: unavailable(await call(server.url, key, "POST", "/logs/traces", { projectId: searchProject.id })),
    spans: unavailable(await call(server.url, key, "POST", "/logs/spans", { projectId: searchProject.id })),
  };
  if (!searchProblems.traces || !searchProblems.spans) {
    log(`${store}: seeding ${SEED_SPANS.toLocaleString("en")} spans`);
    const seeding = openStore(database.url);
    let shown = 0;
    try {
      run.seed = await seedSpans(seeding, {
        projectId: searchProject.id,
        spans: SEED_SPANS,
        onProgress: (written) => {
          if (written - shown >= 100_000 || written === SEED_SPANS) {
            shown = written;
            log(`${store}: ${written.toLocaleString("en")} spans seeded`);
          }
        },
      });
    } finally {
      await seeding.close();
    }
    if (store === "postgres") await analyzePostgres(database.url);
    log(`${store}: seeded in ${run.seed.seconds.toFixed(1)} s`);
  }
  const from = run.seed?.from ?? Date.now();
  const window = { startedAfter: from + 4 * 86_400_000, startedBefore: from + 25 * 86_400_000 };
  const planFilter = [{ column: "attributes", key: "user.plan", operator: "equals", value: "pro" }];
  const queries = {
    traces: { projectId: searchProject.id, ...window, name: "chat", filters: planFilter },
    spans: { projectId: searchProject.id, ...window, name: "llm", filters: planFilter },
  };
  for (const what of ["traces", "spans"] as const) {
    const path = `/logs/${what}`;
    const problem = searchProblems[what];
    const job = (body: Record<string, unknown>, scenario: Scenario): LoadJob => ({
      url: server.url,
      method: "POST",
      path: `/v2${path}`,
      headers: auth,
      body: JSON.stringify(body),
      connections: scenario.connections,
      durationSeconds: scenario.seconds,
    });
    const first = storeScenarios.find((s) => s.id === `c.${what}.p1`) as Scenario;
    const nth = storeScenarios.find((s) => s.id === `c.${what}.pN`) as Scenario;
    if (problem) {
      run.jobs.set(first.id, problem);
      run.jobs.set(nth.id, problem);
      continue;
    }
    try {
      await must(call(server.url, key, "POST", path, queries[what]), `${path} page 1`);
      run.jobs.set(first.id, job(queries[what], first));
      const { body, page } = await bodyOfPage(server, key, path, queries[what], PAGE);
      run.pages[what] = page;
      run.jobs.set(nth.id, job(body, nth));
    } catch (error) {
      const reason = `failed (${(error as Error).message.slice(0, 120)})`;
      if (!run.jobs.has(first.id)) run.jobs.set(first.id, reason);
      run.jobs.set(nth.id, reason);
    }
  }

  // (d) deployments
  const environment = await must<Schemas["DeploymentEnvironment"]>(
    call(server.url, key, "POST", `/projects/${ingestProjectId}/deployment-environments`, { name: "Production" }),
    "create environment",
  );
  const prompt = await must<Schemas["Prompt"]>(
    call(server.url, key, "POST", "/prompts", {
      projectId: ingestProjectId,
      title: "Order status answer",
      draft: {
        config: { provider: "openai", model: "gpt-4o-mini", settings: { temperature: 0.2, maxTokens: 256 } },
        messages: [
          { role: "system", content: [{ modality: "text", value: "You answer questions about {{product}}." }] },
          { role: "user", content: [{ modality: "text", value: "Where is order {{orderId}}?" }] },
        ],
      },
    }),
    "create prompt",
  );
  const deployment = await must<Schemas["Deployment"]>(
    call(server.url, key, "POST", `/prompts/${prompt.id}/deployments`, { deploymentEnvironmentId: environment.id }),
    "deploy",
  );
  const deploymentPaths: Record<string, string> = {
    "d.id": `/v2/deployments?promptId=${prompt.id}&deploymentId=${deployment.id}`,
    "d.latest": `/v2/deployments?promptId=${prompt.id}&deploymentId=latest&deploymentEnvironmentId=${environment.id}`,
  };
  for (const [id, path] of Object.entries(deploymentPaths)) {
    const scenario = storeScenarios.find((s) => s.id === id) as Scenario;
    const problem = unavailable(await call(server.url, key, "GET", path.slice(3)));
    run.jobs.set(
      id,
      problem ?? {
        url: server.url,
        method: "GET",
        path,
        headers: { Authorization: auth.Authorization },
        connections: scenario.connections,
        durationSeconds: scenario.seconds,
      },
    );
  }

  // Warm-up: every scenario once, briefly, not recorded.
  for (const scenario of storeScenarios) {
    const job = run.jobs.get(scenario.id);
    if (typeof job === "object") await load.run({ ...job, durationSeconds: WARMUP_SECONDS });
  }
  return run;
}

// ---------------------------------------------------------------------------------------------------------
// Results

interface Sample extends LoadResult {
  rss: number;
}

const median = (values: number[]) => {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((x, y) => x - y);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

interface Row {
  target: string;
  scenario: Scenario;
  samples: Sample[];
  /** Set when the row could not be measured. */
  reason?: string;
}

interface Summary {
  rps: number;
  okPerSecond: number;
  p50: number;
  p99: number;
  rss: number;
  failures: string;
}

function summarize(row: Row): Summary {
  const failures = new Map<string, number>();
  for (const sample of row.samples) {
    for (const [code, count] of Object.entries(sample.statuses)) failures.set(code, (failures.get(code) ?? 0) + count);
    if (sample.errors > 0) failures.set("errors", (failures.get("errors") ?? 0) + sample.errors);
    if (sample.timeouts > 0) failures.set("timeouts", (failures.get("timeouts") ?? 0) + sample.timeouts);
  }
  return {
    rps: median(row.samples.map((s) => s.rps)),
    okPerSecond: median(row.samples.map((s) => s.okPerSecond)),
    p50: median(row.samples.map((s) => s.p50)),
    p99: median(row.samples.map((s) => s.p99)),
    rss: median(row.samples.map((s) => s.rss)),
    failures: [...failures].map(([code, count]) => `${code}×${count}`).join(" "),
  };
}

const fixed = (value: number, digits: number) => (Number.isNaN(value) ? "–" : value.toFixed(digits));
const thousands = (value: number) => (Number.isNaN(value) ? "–" : Math.round(value).toLocaleString("en"));

function printTable(rows: Row[], ceiling: (kind: "ceiling-a" | "ceiling-v", connections: number) => number) {
  const header = [
    "store",
    "scenario",
    "conn",
    "req/s",
    "p50 ms",
    "p99 ms",
    "spans/s",
    "RSS MB",
    "×(a)",
    "×(v)",
    "non-2xx",
  ];
  const lines: string[][] = [];
  for (const row of rows) {
    const base = [row.target, row.scenario.label, String(row.scenario.connections)];
    if (row.reason) {
      lines.push([...base, row.reason, "", "", "", "", "", "", ""]);
      continue;
    }
    const s = summarize(row);
    const a = ceiling("ceiling-a", row.scenario.connections);
    const v = ceiling("ceiling-v", row.scenario.connections);
    lines.push([
      ...base,
      thousands(s.rps),
      fixed(s.p50, 2),
      fixed(s.p99, 2),
      row.scenario.spansPerRequest ? thousands(s.okPerSecond * row.scenario.spansPerRequest) : "",
      fixed(s.rss, 0),
      row.scenario.kind === "ceiling-a" ? "1" : fixed(s.rps / a, 2),
      row.scenario.kind === "ceiling-v" ? "1" : fixed(s.rps / v, 2),
      s.failures,
    ]);
  }
  // A reason ("not available …") runs over the numeric columns and does not size them.
  const sized = (line: string[], i: number) =>
    i >= 3 && line[4] === "" && line[5] === "" ? 0 : (line[i] ?? "").length;
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((line) => sized(line, i))));
  const numeric = new Set([2, 3, 4, 5, 6, 7, 8, 9]);
  const format = (cells: string[]) =>
    cells
      .map((cell, i) => {
        const width = widths[i] as number;
        // A "not available" reason spans the numeric columns: leave it unpadded.
        if (i === 3 && cells[4] === "" && cells[5] === "") return cell;
        return numeric.has(i) ? cell.padStart(width) : cell.padEnd(width);
      })
      .join("  ")
      .trimEnd();
  process.stdout.write(`${format(header)}\n${widths.map((w) => "-".repeat(w)).join("  ")}\n`);
  for (const line of lines) process.stdout.write(`${format(line)}\n`);
}

// ---------------------------------------------------------------------------------------------------------
// Main

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
    const bare = await startCeiling("bare", logDir);
    cleanups.push(() => bare.stop());
    const validate = await startCeiling("validate", logDir);
    cleanups.push(() => validate.stop());
    const idleRss = { bare: rssMb(bare.pid), validate: rssMb(validate.pid) };

    const template = traceBodyTemplate("project_01JD8Q4KZ8T6V2M3N4P5Q6R7S8", Date.now() - 60_000);
    const ceilingJob = (scenario: Scenario): LoadJob =>
      scenario.kind === "ceiling-a"
        ? {
            url: bare.url,
            method: "GET",
            path: "/bare",
            headers: {},
            connections: scenario.connections,
            durationSeconds: scenario.seconds,
          }
        : {
            url: validate.url,
            method: "POST",
            path: "/v2/logs/trace",
            headers: { "Content-Type": "application/json" },
            template,
            connections: scenario.connections,
            durationSeconds: scenario.seconds,
          };
    for (const scenario of ceilingScenarios)
      await load.run({ ...ceilingJob(scenario), durationSeconds: WARMUP_SECONDS });

    const runs: StoreRun[] = [];
    const missing = new Map<StoreName, string>();
    for (const store of stores) {
      log(`${store}: starting the server`);
      const run = await setUpStore(store, logDir, load);
      if (typeof run === "string") {
        missing.set(store, run);
        log(`${store}: ${run}`);
        continue;
      }
      cleanups.push(() => run.database.dispose());
      cleanups.push(() => run.server.stop());
      runs.push(run);
    }

    const rows = new Map<string, Row>();
    const rowOf = (target: string, scenario: Scenario) => {
      const key = `${target}/${scenario.id}`;
      if (!rows.has(key)) rows.set(key, { target, scenario, samples: [] });
      return rows.get(key) as Row;
    };
    const measure = async (target: string, scenario: Scenario, job: LoadJob, pid: number | undefined) => {
      const result = await load.run(job);
      rowOf(target, scenario).samples.push({ ...result, rss: rssMb(pid) });
      if (result.firstFailure) log(`${target} ${scenario.id}: first non-2xx: ${result.firstFailure.slice(0, 200)}`);
    };

    for (let round = 1; round <= ROUNDS; round++) {
      log(`round ${round} of ${ROUNDS}`);
      for (const scenario of ceilingScenarios) {
        const server = scenario.kind === "ceiling-a" ? bare : validate;
        await measure("ceiling", scenario, ceilingJob(scenario), server.pid);
      }
      // Rotate the order of the databases from round to round.
      const order = runs.map((_, i) => runs[(i + round - 1) % runs.length] as StoreRun);
      for (const run of order) {
        for (const scenario of storeScenarios) {
          const job = run.jobs.get(scenario.id);
          if (typeof job === "object") await measure(run.store, scenario, job, run.server.pid);
          else rowOf(run.store, scenario).reason = job ?? "not available";
        }
      }
    }
    for (const [store, reason] of missing) {
      for (const scenario of storeScenarios) rowOf(store, scenario).reason = reason;
    }

    const ceiling = (kind: "ceiling-a" | "ceiling-v", connections: number) =>
      summarize(
        rowOf("ceiling", ceilingScenarios.find((s) => s.kind === kind && s.connections === connections) as Scenario),
      ).rps;

    // ---- Report
    const cpu = cpus()[0]?.model ?? "unknown CPU";
    process.stdout.write(
      [
        "",
        `Pharos logs benchmark (${quick ? "--quick" : "full"}): median of ${ROUNDS} interleaved rounds; ` +
          `${WRITE_SECONDS} s per write/ceiling measurement, ${READ_SECONDS} s per read measurement`,
        `Node ${process.version}, ${availableParallelism()} cores (${cpu}); ` +
          (pinning.enabled
            ? "server on core 0, autocannon on core 1 (taskset)"
            : "no CPU pinning: server and load generator share the cores"),
        `Load average (1 min) at start ${loadAtStart}, at end ${loadAverage()}` +
          (Number(loadAtStart) > 0.5 ? " — other processes were busy: expect noisy figures" : ""),
        `Server RSS when idle after start: ${[
          ...runs.map((run) => `${run.store} ${fixed(run.idleRss, 0)} MB`),
          `ceilings ${fixed(idleRss.bare, 0)} / ${fixed(idleRss.validate, 0)} MB`,
        ].join(", ")} (the RSS column: right after each measurement; PostgreSQL's own processes not included)`,
        `Write payload: 1 trace + ${SPANS_PER_TRACE} Model spans, ${templateBytes(template).toLocaleString("en")} bytes; ` +
          `×(a) and ×(v): req/s over the ceiling's req/s at the same connection count`,
        ...runs
          .filter((run) => run.seed)
          .map(
            (run) =>
              `Search project (${run.store}): ${run.seed?.spans.toLocaleString("en")} spans in ${run.seed?.traces.toLocaleString("en")} traces ` +
              `over ${SEED_DAYS} days, seeded in ${run.seed?.seconds.toFixed(0)} s; query: 21-day window, name substring, ` +
              `attribute user.plan = "pro"; "page 50" reached page ${run.pages.traces ?? "–"} (traces) / ${run.pages.spans ?? "–"} (spans)`,
          ),
        "",
        "",
      ].join("\n"),
    );
    printTable(
      [
        ...ceilingScenarios.map((scenario) => rowOf("ceiling", scenario)),
        ...stores.flatMap((store) => storeScenarios.map((scenario) => rowOf(store, scenario))),
      ],
      ceiling,
    );
    printTargets(stores, rowOf, ceiling, runs);
    log(`done in ${((Date.now() - startedAt) / 1000).toFixed(0)} s`);
  } finally {
    await cleanUp();
  }
}

/** The 1-minute load average, as text ("?" without /proc). */
function loadAverage(): string {
  try {
    return readFileSync("/proc/loadavg", "utf8").split(" ")[0] ?? "?";
  } catch {
    return "?";
  }
}

function printTargets(
  storeNames: StoreName[],
  rowOf: (target: string, scenario: Scenario) => Row,
  ceiling: (kind: "ceiling-a" | "ceiling-v", connections: number) => number,
  runs: StoreRun[],
) {
  const scenario = (id: string) => storeScenarios.find((s) => s.id === id) as Scenario;
  const lines: string[] = ["", "Targets of issue 5 (this run):"];
  const check = (store: string, what: string, ok: boolean | undefined, detail: string) =>
    lines.push(`  ${ok === undefined ? "n/a " : ok ? "met " : "MISS"}  ${store.padEnd(8)} ${what}: ${detail}`);
  for (const store of storeNames) {
    const get = (id: string) => {
      const row = rowOf(store, scenario(id));
      return row.reason || row.samples.length === 0 ? undefined : summarize(row);
    };
    const b50 = get("b.c50");
    const floor = store === "sqlite" ? 0.55 : 0.4;
    if (b50) {
      const ratio = b50.rps / ceiling("ceiling-v", 50);
      check(store, `(b) 50 connections ≥ ${floor} × (v)`, ratio >= floor, `${ratio.toFixed(2)} × (v)`);
    } else check(store, `(b) 50 connections ≥ ${floor} × (v)`, undefined, "not measured");
    const rate = get("b.r1000");
    if (store === "sqlite") {
      check(
        store,
        "(b) p99 at 1,000 req/s offered ≤ 30 ms",
        rate ? rate.p99 <= 30 : undefined,
        rate ? `${fixed(rate.p99, 1)} ms (achieved ${thousands(rate.okPerSecond)} req/s)` : "not measured",
      );
    }
    for (const what of ["traces", "spans"] as const) {
      const first = get(`c.${what}.p1`);
      const nth = get(`c.${what}.pN`);
      const page = runs.find((run) => run.store === store)?.pages[what];
      if (first && nth) {
        const worst = Math.max(first.p99, nth.p99);
        check(
          store,
          `(c) /logs/${what} p99 < 25 ms`,
          worst < 25,
          `page 1 ${fixed(first.p99, 1)} ms, page ${page} ${fixed(nth.p99, 1)} ms`,
        );
        const slower = nth.p50 / first.p50;
        check(
          store,
          `(c) /logs/${what} page ${page} no slower than page 1`,
          slower <= 1.1,
          `p50 ${fixed(nth.p50, 2)} vs ${fixed(first.p50, 2)} ms (${slower.toFixed(2)}×; 10% noise allowed)` +
            (page !== PAGE ? ` — only ${page} pages match: seed more spans` : ""),
        );
      } else check(store, `(c) /logs/${what}`, undefined, "not measured");
    }
    for (const id of ["d.id", "d.latest"]) {
      const d = get(id);
      const a = ceiling("ceiling-a", scenario(id).connections);
      check(
        store,
        `${scenario(id).label} ≥ 0.5 × (a)`,
        d ? d.rps / a >= 0.5 : undefined,
        d ? `${(d.rps / a).toFixed(2)} × (a)` : "not measured",
      );
    }
    const rss = Math.max(
      ...storeScenarios
        .flatMap((s) => rowOf(store, s).samples.map((sample) => sample.rss))
        .filter((v) => !Number.isNaN(v)),
    );
    const seeded = runs.find((run) => run.store === store)?.seed?.spans ?? 0;
    check(
      store,
      `server RSS < 200 MB with 1 M spans`,
      Number.isFinite(rss) ? (seeded >= 1_000_000 ? rss < 200 : undefined) : undefined,
      Number.isFinite(rss)
        ? `max ${rss.toFixed(0)} MB with ${seeded.toLocaleString("en")} spans seeded`
        : "not measured",
    );
  }
  process.stdout.write(`${lines.join("\n")}\n`);
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`[bench] failed: ${(error as Error)?.stack ?? error}\n`);
    process.exit(1);
  },
);
