/**
 * The metrics rows of the benchmark (ADR 0017), measured in process after the load rounds:
 * (m) POST /logs/metrics over the seeded project — 30 days, hourly buckets, grouped by model, with span count,
 *     error rate, cost and latency p50/p99 — `QUERIES` sequential requests, after a full GC and `WARMUP_QUERIES`
 *     untimed ones, through `app.request` (routing, validation, service and store; no sockets): p50 and p99
 *     latency, against the target p99 < 50 ms, and the slowest 1 %'s wall and process CPU time. It reads
 *     the per-dimension rollups (migration 0021): 720 hours × 3 models (two and none) rows, one per point;
 * (r) what the rollups cost ingestion: batches of the bench's trace (5 Model spans, ~14 KB) stored through the
 *     write batcher exactly as POST /logs/trace stores them (the same row builders), once with the rollup
 *     deltas (built in the timed part, as a write builds them) and once without, in pairs of rounds back to
 *     back (PAIRS, alternating which goes first, a full GC before each): the median of the pairs' ratios, with
 *     its quartiles, of wall time (against the target ≤ 10 % more time) and of CPU time (this process and, on
 *     PostgreSQL, its backends). Without HTTP, parsing and validation (which the rollups do not change), this
 *     is the storage share, the upper bound of what an end-to-end write pays.
 *
 * Standalone: `tsx scripts/bench/metrics.ts [--quick] [--stores sqlite,postgres]` seeds BENCH_SPANS spans into
 * fresh databases first; BENCH_SPANS=0 seeds nothing and measures (r) only.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { schemas } from "@pharos/contract";
import {
  adminContext,
  createApiKey,
  createApp,
  createProjectForWorkspace,
  createWorkspace,
  openStore,
  type Store,
} from "@pharos/server";
import type { ErrorDetail } from "../../apps/server/src/errors.ts";
import {
  type SpanRow,
  spanIndexRows,
  tagRows,
  toSpanRow,
  totalsOf,
  uniqueTags,
} from "../../apps/server/src/services/logs/log-rows.ts";
import { type CheckedContent, checkContent } from "../../apps/server/src/services/logs/span-content.ts";
import { type Inserts, WriteBatcher } from "../../apps/server/src/services/logs/write-batcher.ts";
import { audienceSpans } from "../../apps/server/src/services/metrics/rollups.ts";
import { cpuMs } from "./cpu.ts";
import { idMaker } from "./ids.ts";
import { POSTGRES_URL, quick, SEED_SPANS, stores } from "./options.ts";
import { traceBodyTemplate } from "./payload.ts";
import { type SeedResult, seedSpans } from "./seed.ts";
import { analyzePostgres, type Database, postgresDatabase, sqliteDatabase } from "./targets.ts";

const QUERIES = quick ? 50 : 300;
/**
 * Queries before the timed ones: V8 optimizes the query's code only after it has run a few times, and the first
 * ten queries after a start took 27–40 ms where later ones took 15–21 ms (60,000 spans, this 2-core VM). A p99
 * of 300 is the fourth-slowest query: those first ones were it, and it measured the compiler, not the query.
 */
const WARMUP_QUERIES = 30;
/** Traces per write batch (the batcher's default most jobs per batch), batches per round, pairs of rounds. */
const TRACES_PER_BATCH = 128;
const BATCHES_PER_ROUND = quick ? 4 : 8;
const PAIRS = quick ? 12 : 30;
const WARMUP_BATCHES = 32;
const DAY = 86_400_000;

export interface MetricsResult {
  store: string;
  query:
    | {
        p50: number;
        p99: number;
        cpuP50: number;
        /** The slowest 1 % of the queries, wall and process CPU time: work, or waiting for a core. */
        slowest: { ms: number; cpuMs: number }[];
        groups: number;
        points: number;
      }
    | { failed: string };
  /** The pairs' ratios (with / without − 1) of wall and CPU time: median and quartiles. */
  rollups: {
    pairs: number;
    wall: Spread;
    cpu: Spread;
    spansPerSecondWith: number;
    spansPerSecondWithout: number;
  };
}

interface Spread {
  q1: number;
  median: number;
  q3: number;
}

const percentile = (sorted: readonly number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
const median = (values: readonly number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  );

/** (m): the 30-day hourly by-model query over the seeded project, QUERIES times in a row. */
async function measureQuery(store: Store, projectId: string, seed: SeedResult): Promise<MetricsResult["query"]> {
  const project = await store.db
    .selectFrom("projects")
    .select("workspaceId")
    .where("id", "=", projectId)
    .executeTakeFirstOrThrow();
  const { key } = await createApiKey(adminContext(store), {
    workspaceId: project.workspaceId,
    name: "metrics bench",
    role: "read-only",
    projectIds: null,
  });
  // Rate limits counted in this process: on PostgreSQL the shared counter of the project's workspace is also the
  // bench server's (run.ts), whose limit of 999,999,999 a minute has it take a million requests at a time, so
  // this app's window would be spent already and every query after the first answered 429 in under a millisecond.
  const app = await createApp({ store, rateLimits: { other: 1_000_000 }, rateLimitScope: "process" });
  const body = JSON.stringify({
    projectId,
    from: seed.from,
    to: seed.from + 30 * DAY,
    bucket: "hour",
    metrics: ["spanCount", "errorRate", "cost", "latencyP50", "latencyP99"],
    groupBy: ["model"],
  });
  const ask = () =>
    app.request("/v2/logs/metrics", {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body,
    });
  // The seed's garbage is collected now rather than during the timed queries (as (r) does before each round),
  // and before the warmup: the first query after a full collection took 54–94 ms at 300,000 spans and more (its
  // CPU time above its wall time, helper threads' work), and it was the timed loop's slowest (ADR 0017).
  collectGarbage();
  const first = await ask();
  if (first.status !== 200) return { failed: `${first.status} ${(await first.text()).slice(0, 200)}` };
  const answer = (await first.json()) as { groups: { series: unknown[] }[] };
  for (let i = 1; i < WARMUP_QUERIES; i++) await (await ask()).arrayBuffer();
  const times: number[] = [];
  // The process's CPU time per query too: on a shared machine the wall time also counts waiting for a core.
  const cpu: number[] = [];
  for (let i = 0; i < QUERIES; i++) {
    const started = performance.now();
    const usage = process.cpuUsage();
    const reply = await ask();
    const bytes = await reply.arrayBuffer();
    const used = process.cpuUsage(usage);
    // A refused query is fast: timing it would measure the refusal, not the query.
    if (reply.status !== 200) {
      const text = new TextDecoder().decode(bytes).slice(0, 200);
      return { failed: `timed query ${i + 1} of ${QUERIES}: ${reply.status} ${text}` };
    }
    times.push(performance.now() - started);
    cpu.push((used.user + used.system) / 1000);
  }
  const slowest = times
    .map((ms, index) => ({ ms, cpuMs: cpu[index] as number }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, Math.ceil(QUERIES / 100));
  times.sort((a, b) => a - b);
  return {
    p50: percentile(times, 0.5),
    p99: percentile(times, 0.99),
    cpuP50: median(cpu),
    slowest,
    groups: answer.groups.length,
    points: answer.groups.reduce((sum, group) => sum + group.series.length, 0),
  };
}

/**
 * The rows POST /logs/trace stores for the bench's trace, and a function that adds what createLogTrace adds for
 * the rollups (called in the timed part of a round: preparing them is part of what the rollups cost).
 */
function traceInserts(
  projectId: string,
  workspaceId: string,
  newId: ReturnType<typeof idMaker>,
): { rows: Inserts; rollups: () => Inserts } {
  const startedAt = Date.now() - DAY;
  const { prefix, suffix } = traceBodyTemplate(projectId, startedAt);
  const body = JSON.parse(`${prefix}${newId("ref", startedAt)}${suffix}`);
  const issues: ErrorDetail[] = [];
  const traceId = newId("trace", startedAt);
  const spans: SpanRow[] = body.spans.map((span: schemas.LogSpanInput, index: number) =>
    toSpanRow(
      { id: newId("span", startedAt + index), workspaceId, projectId, traceId, now: startedAt },
      span,
      checkContent(span.content, "content", issues) as CheckedContent,
    ),
  );
  const owner = { projectId, ownerKind: "trace" as const, ownerId: traceId, startedAt };
  const trace = {
    id: traceId,
    workspaceId,
    projectId,
    name: body.trace.name,
    status: body.trace.status,
    startedAt,
    endedAt: body.trace.endedAt,
    latency: body.trace.endedAt - startedAt,
    referenceId: body.trace.referenceId,
    sessionId: body.trace.sessionId,
    attributes: JSON.stringify(body.trace.attributes),
    tags: JSON.stringify(body.trace.tags),
    spanIds: JSON.stringify(spans.map((span) => span.id)),
    ...totalsOf(spans),
    createdAt: startedAt,
    updatedAt: startedAt,
  };
  const index = spans.map((span, at) => spanIndexRows(span, body.spans[at]));
  const rows: Inserts = [
    { table: "logTraces", rows: [trace] },
    { table: "logSpans", rows: spans },
    { table: "logAttributes", rows: index.flatMap((rows) => rows.attributes) },
    { table: "logTags", rows: [...tagRows(owner, uniqueTags(body.trace.tags)), ...index.flatMap((rows) => rows.tags)] },
  ];
  // What createLogTrace adds to the rollups (the trace-side dimensions too: user, session, tags).
  const rollups = (): Inserts => [
    {
      table: "newTraceRollups",
      rows: [
        {
          projectId,
          name: trace.name,
          startedAt,
          userId: null,
          sessionId: trace.sessionId,
          tags: uniqueTags(body.trace.tags),
          spans: audienceSpans(spans),
        },
      ],
    },
  ];
  return { rows, rollups };
}

/** A full collection between rounds, when the flag can be set, so no round pays for garbage of another. */
const collectGarbage = (() => {
  try {
    setFlagsFromString("--expose-gc");
    return runInNewContext("gc") as () => void;
  } catch {
    return () => {};
  }
})();

/**
 * (r): pairs of rounds, one with the rollup deltas and one without, back to back in alternating order; each
 * round stores BATCHES_PER_ROUND batches. A pair's ratio compares two rounds a second apart, so the machine's
 * load drifting over the run cancels out; the median of the pairs' ratios is the figure, their quartiles its
 * spread. Also the CPU time (this process and, on PostgreSQL, the database's backends): on a shared machine
 * the wall time counts waiting for a core too.
 */
async function measureRollupCost(store: Store, postgres: boolean): Promise<MetricsResult["rollups"]> {
  const admin = adminContext(store);
  const workspace = await createWorkspace(admin, "Rollup cost bench");
  const project = await createProjectForWorkspace(admin, workspace.id, "Rollup cost bench");
  const batcher = new WriteBatcher(store);
  const newId = idMaker();
  // The store's pool runs the batches and this sampling both: every backend of the database is the work's.
  const databaseCpu = async () => (postgres ? (await cpuMs(undefined, store, { ownBackend: true })).database : 0);
  const round = async (rollups: boolean) => {
    const batches = Array.from({ length: BATCHES_PER_ROUND }, () =>
      Array.from({ length: TRACES_PER_BATCH }, () => traceInserts(project.id, workspace.id, newId)),
    );
    collectGarbage();
    const database = await databaseCpu();
    const usage = process.cpuUsage();
    const started = performance.now();
    for (const batch of batches) {
      await Promise.all(
        batch.map(({ rows, rollups: deltas }) => batcher.submitInserts(rollups ? [...rows, ...deltas()] : rows)),
      );
    }
    const ms = performance.now() - started;
    const used = process.cpuUsage(usage);
    return { ms, cpuMs: (used.user + used.system) / 1000 + (await databaseCpu()) - database };
  };
  // Warm-up (statement caches, JIT, the tables' first pages), not counted. A batch calls each rollup builder
  // once, and V8 optimizes a function only after many calls: WARMUP_BATCHES a side, or the first pairs would
  // measure code a server that has run for a minute no longer runs.
  for (let i = 0; i < Math.ceil(WARMUP_BATCHES / BATCHES_PER_ROUND); i++) {
    await round(true);
    await round(false);
  }
  const pairs: { with: Round; without: Round }[] = [];
  for (let i = 0; i < PAIRS; i++) {
    // Alternate which goes first, so that neither always follows the other's checkpoint or vacuum.
    if (i % 2 === 0) {
      const withRollups = await round(true);
      pairs.push({ with: withRollups, without: await round(false) });
    } else {
      const without = await round(false);
      pairs.push({ with: await round(true), without });
    }
  }
  const spans = BATCHES_PER_ROUND * TRACES_PER_BATCH * 5;
  const quartiles = (ratios: number[]) => {
    const sorted = ratios.sort((a, b) => a - b);
    return { q1: percentile(sorted, 0.25) - 1, median: percentile(sorted, 0.5) - 1, q3: percentile(sorted, 0.75) - 1 };
  };
  return {
    pairs: PAIRS,
    wall: quartiles(pairs.map((pair) => pair.with.ms / pair.without.ms)),
    cpu: quartiles(pairs.map((pair) => pair.with.cpuMs / pair.without.cpuMs)),
    spansPerSecondWith: (spans / median(pairs.map((pair) => pair.with.ms))) * 1000,
    spansPerSecondWithout: (spans / median(pairs.map((pair) => pair.without.ms))) * 1000,
  };
}

interface Round {
  ms: number;
  cpuMs: number;
}

export async function measureMetrics(
  store: string,
  databaseUrl: string,
  projectId: string | undefined,
  seed: SeedResult | undefined,
): Promise<MetricsResult> {
  const opened = openStore(databaseUrl);
  try {
    const query =
      projectId && seed ? await measureQuery(opened, projectId, seed) : { failed: "no seeded project to query" };
    return { store, query, rollups: await measureRollupCost(opened, databaseUrl.startsWith("postgres")) };
  } finally {
    await opened.close();
  }
}

export function printMetrics(results: readonly MetricsResult[]): void {
  if (results.length === 0) return;
  process.stdout.write("\nMetrics (ADR 0017)\n");
  for (const { store, query, rollups } of results) {
    const m =
      "failed" in query
        ? `failed: ${query.failed}`
        : `p50 ${query.p50.toFixed(1)} ms, p99 ${query.p99.toFixed(1)} ms (target < 50 ms: ${query.p99 < 50 ? "met" : "MISSED"}); ${query.groups} groups, ${query.points} points; process CPU p50 ${query.cpuP50.toFixed(1)} ms; slowest 1 % (wall / CPU) ${query.slowest.map(({ ms, cpuMs }) => `${ms.toFixed(1)} / ${cpuMs.toFixed(1)}`).join(", ")} ms`;
    process.stdout.write(`  ${store.padEnd(8)} (m) POST /logs/metrics 30 d hourly by model: ${m}\n`);
    const percent = (value: number) => `${(value * 100).toFixed(1)} %`;
    const spread = ({ q1, q3 }: Spread) => `quartiles ${percent(q1)} – ${percent(q3)}`;
    process.stdout.write(
      `  ${store.padEnd(8)} (r) rollups' ingestion cost: ${percent(rollups.wall.median)} more storage time ` +
        `(${spread(rollups.wall)}), ${percent(rollups.cpu.median)} more CPU time (${spread(rollups.cpu)}); ` +
        `median of ${rollups.pairs} pairs of rounds; ` +
        `${rollups.spansPerSecondWith.toFixed(0)} vs ${rollups.spansPerSecondWithout.toFixed(0)} spans/s; ` +
        `target ≤ 10 %: ${rollups.wall.median <= 0.1 ? "met" : "MISSED"}\n`,
    );
  }
}

// Standalone use: fresh databases, seeded, then measured.
if (import.meta.url === `file://${process.argv[1]}`) {
  for (const name of stores) {
    const database: Database =
      name === "sqlite"
        ? sqliteDatabase(mkdtempSync(join(tmpdir(), "pharos-metrics-")))
        : await postgresDatabase(POSTGRES_URL);
    try {
      const store = openStore(database.url);
      await store.migrate();
      let seeded: { projectId: string; seed: SeedResult } | undefined;
      if (SEED_SPANS > 0) {
        const admin = adminContext(store);
        const workspace = await createWorkspace(admin, "Metrics bench");
        const project = await createProjectForWorkspace(admin, workspace.id, "Metrics bench");
        process.stderr.write(`${name}: seeding ${SEED_SPANS.toLocaleString("en")} spans\n`);
        const seed = await seedSpans(store, { projectId: project.id, spans: SEED_SPANS });
        process.stderr.write(`${name}: seeded in ${seed.seconds.toFixed(1)} s\n`);
        seeded = { projectId: project.id, seed };
      }
      await store.close();
      if (name === "postgres") await analyzePostgres(database.url);
      // Each database's rows as soon as they are measured (a long run may be stopped before the next).
      printMetrics([await measureMetrics(name, database.url, seeded?.projectId, seeded?.seed)]);
    } finally {
      await database.dispose();
    }
  }
}
