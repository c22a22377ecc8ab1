/**
 * The logs benchmark's report: a header with the run's conditions, one table row per target and scenario (the
 * median of its rounds, and its ratio to the ceilings at the same connection count), then the targets, met or
 * missed.
 */
import { readFileSync } from "node:fs";
import { availableParallelism, cpus } from "node:os";
import type { Cpu } from "./cpu.ts";
import type { LoadResult } from "./load.ts";
import { quick, READ_SECONDS, ROUNDS, WRITE_SECONDS } from "./options.ts";
import { SPANS_PER_TRACE, templateBytes } from "./payload.ts";
import { pinning } from "./processes.ts";
import { LIMITER_SCENARIOS, PAGE, type Scenario, storeScenarios } from "./scenarios.ts";
import { SEED_DAYS } from "./seed.ts";
import type { Ceilings, StoreRun } from "./setup.ts";
import type { StoreName } from "./targets.ts";

/** The req/s of ceiling (a) or (v) at a connection count. */
export type Ceiling = (kind: "ceiling-a" | "ceiling-v", connections: number) => number;

export interface Sample extends LoadResult {
  rss: number;
  /** The CPU the measurement took, for writes (cpu.ts). */
  cpu?: Cpu;
}

const median = (values: number[]) => {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((x, y) => x - y);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

export interface Row {
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

/**
 * `row` against `base` block by block (the PAIRED rows, measured back to back): the median of the blocks'
 * ratios of expected responses per second, steadier than the ratio of the medians on a machine whose speed
 * drifts from block to block.
 */
export function pairedRatio(row: Row, base: Row): number {
  return median(
    row.samples.map((sample, round) => sample.okPerSecond / (base.samples[round]?.okPerSecond ?? Number.NaN)),
  );
}

/** The median CPU time per span stored (µs), server and database, of a write row. */
function cpuPerSpan(row: Row): { server: number; database: number } {
  const spans = (sample: Sample) => sample.ok * (row.scenario.spansPerRequest ?? 1);
  const per = (pick: (cpu: Cpu) => number) =>
    median(row.samples.map((sample) => (sample.cpu ? (pick(sample.cpu) * 1000) / spans(sample) : Number.NaN)));
  return { server: per((cpu) => cpu.server), database: per((cpu) => cpu.database) };
}

export function summarize(row: Row): Summary {
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

// A row with no answered request in a short run has no latency (null): printed "–" like a missing figure.
const fixed = (value: number | null, digits: number) =>
  value === null || Number.isNaN(value) ? "–" : value.toFixed(digits);
const thousands = (value: number) => (Number.isNaN(value) ? "–" : Math.round(value).toLocaleString("en"));

export function printTable(rows: Row[], ceiling: Ceiling) {
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

/** The table's name for the second PostgreSQL server, whose rate limits are counted in its own memory. */
export const processTarget = (store: StoreName) => `${store} (process limits)`;

/**
 * The shared rate limiter's cost (ADR 0009): each hot-path row of a database with a process-limits server next
 * to the same row there, measured back to back, and how often the shared limiter asked the database.
 */
export function printLimiterOverhead(
  runs: StoreRun[],
  rowOf: (target: string, scenario: Scenario) => Row,
  takes: Map<StoreName, number | undefined>,
) {
  for (const run of runs) {
    if (!run.processScope) continue;
    const lines = [
      "",
      `Rate limits shared by replicas (${run.store}, ADR 0009): the server above against ${processTarget(run.store)}, ` +
        "a second server on the same database counting in its own memory (PHAROS_RATE_LIMIT_SCOPE=process)",
    ];
    const header = ["scenario", "shared req/s", "process req/s", "ratio", "p50 ms", "p99 ms"];
    const table: string[][] = [];
    let requests = 0;
    for (const scenario of storeScenarios) {
      const shared = rowOf(run.store, scenario);
      if (shared.samples.length > 0)
        requests += median(shared.samples.map((sample) => sample.rps)) * scenario.seconds * shared.samples.length;
      if (!LIMITER_SCENARIOS.includes(scenario.id)) continue;
      const local = rowOf(processTarget(run.store), scenario);
      if (shared.samples.length === 0 || local.samples.length === 0) continue;
      const a = summarize(shared);
      const b = summarize(local);
      table.push([
        `${scenario.label} c${scenario.connections}`,
        thousands(a.rps),
        thousands(b.rps),
        fixed(a.rps / b.rps, 2),
        `${fixed(a.p50, 2)} / ${fixed(b.p50, 2)}`,
        `${fixed(a.p99, 2)} / ${fixed(b.p99, 2)}`,
      ]);
    }
    const widths = header.map((h, i) => Math.max(h.length, ...table.map((line) => (line[i] ?? "").length)));
    const format = (cells: string[]) =>
      `  ${cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] as number) : cell.padStart(widths[i] as number))).join("  ")}`;
    lines.push(format(header), ...table.map(format));
    const taken = takes.get(run.store);
    lines.push(
      taken === undefined
        ? "  (how often the limiter asked the database is unknown: no table statistics)"
        : `  The shared server took ${thousands(taken)} batches from the database for about ${thousands(requests)} requests ` +
            `(1 per ${thousands(requests / Math.max(1, taken))}); ratio = shared / process req/s, latencies shared / process.`,
    );
    process.stdout.write(`${lines.join("\n")}\n`);
  }
}

/** What the figures below depend on: the mode, the machine and its load, idle memory, the payload, the seed. */
export function printHeader(loadAtStart: string, runs: StoreRun[], ceilings: Ceilings) {
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
        `ceilings ${fixed(ceilings.idleRss.bare, 0)} / ${fixed(ceilings.idleRss.validate, 0)} MB`,
      ].join(", ")} (the RSS column: right after each measurement; PostgreSQL's own processes not included)`,
      `Write payload: 1 trace + ${SPANS_PER_TRACE} Model spans, ${templateBytes(ceilings.template).toLocaleString("en")} bytes; ` +
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
}

/** The 1-minute load average, as text ("?" without /proc). */
export function loadAverage(): string {
  try {
    return readFileSync("/proc/loadavg", "utf8").split(" ")[0] ?? "?";
  } catch {
    return "?";
  }
}

export function printTargets(
  storeNames: StoreName[],
  rowOf: (target: string, scenario: Scenario) => Row,
  ceiling: Ceiling,
  runs: StoreRun[],
) {
  const scenario = (id: string) => storeScenarios.find((s) => s.id === id) as Scenario;
  const lines: string[] = ["", "Targets of the logs API (this run):"];
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
    // (e) OTLP protobuf against (b) native, the same 5-Model-span trace, spans stored per second at 50 connections.
    const e50 = get("e.c50");
    if (b50 && e50) {
      const ratio = pairedRatio(rowOf(store, scenario("e.c50")), rowOf(store, scenario("b.c50")));
      check(
        store,
        "(e) OTLP spans/s at 50 connections ≥ 0.8 × (b)",
        ratio >= 0.8,
        `${ratio.toFixed(2)} × (b), median of the blocks' ratios (medians ${thousands(e50.okPerSecond * SPANS_PER_TRACE)} ` +
          `against ${thousands(b50.okPerSecond * SPANS_PER_TRACE)} spans/s)`,
      );
    } else check(store, "(e) OTLP spans/s at 50 connections ≥ 0.8 × (b)", undefined, "not measured");
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

/** A section comparing a row at 50 connections with (b) there, per database, as `describe` puts it. */
function printAgainstNative(
  title: string,
  id: string,
  stores: StoreName[],
  rowOf: (target: string, scenario: Scenario) => Row,
  describe: (store: StoreName, native: Row, other: Row) => string[],
) {
  const native = storeScenarios.find((scenario) => scenario.id === "b.c50") as Scenario;
  const compared = storeScenarios.find((scenario) => scenario.id === id) as Scenario;
  const lines = ["", title];
  for (const store of stores) {
    const b = rowOf(store, native);
    const other = rowOf(store, compared);
    if (b.samples.length === 0 || other.samples.length === 0) {
      lines.push(`  ${store}: ${other.reason ?? b.reason ?? "not measured"}`);
      continue;
    }
    lines.push(...describe(store, b, other));
  }
  process.stdout.write(`${lines.join("\n")}\n`);
}

/** (g) against (b) at 50 connections, per database: what masking rules cost ingestion (same rounds). */
export function printMaskingOverhead(stores: StoreName[], rowOf: (target: string, scenario: Scenario) => Row) {
  printAgainstNative(
    "Masking at ingestion (ADR 0019): POST /logs/trace c50, masking rules on (g) vs off (b)",
    "g.c50",
    stores,
    rowOf,
    (store, off, on) => {
      const a = summarize(off);
      const b = summarize(on);
      return [
        `  ${store}: off ${thousands(a.rps)} req/s, on ${thousands(b.rps)} req/s, on/off ${fixed(pairedRatio(on, off), 2)} ` +
          `(median of the blocks' ratios); p99 ${fixed(a.p99, 2)} / ${fixed(b.p99, 2)} ms`,
      ];
    },
  );
}

/**
 * (e) against (b) at 50 connections, per database (ADR 0013): spans stored per second block by block, and the
 * CPU each stored span took in the server and in the database, whose difference is what OTLP's decoding and
 * mapping add per span.
 */
export function printOtlpOverhead(stores: StoreName[], rowOf: (target: string, scenario: Scenario) => Row) {
  printAgainstNative(
    "OTLP ingestion (ADR 0013): POST /otel/v1/traces protobuf (e) vs POST /logs/trace (b), c50, block by block",
    "e.c50",
    stores,
    rowOf,
    (store, b, e) => {
      const spansPerSecond = (row: Row) => row.samples.map((sample) => thousands(sample.okPerSecond * SPANS_PER_TRACE));
      const ratios = e.samples.map((sample, round) =>
        fixed(sample.okPerSecond / (b.samples[round]?.okPerSecond ?? Number.NaN), 2),
      );
      const cb = cpuPerSpan(b);
      const ce = cpuPerSpan(e);
      return [
        `  ${store}: spans/s per block (b) ${spansPerSecond(b).join(" / ")}, (e) ${spansPerSecond(e).join(" / ")}; ` +
          `(e)/(b) ${ratios.join(" / ")}, median ${fixed(pairedRatio(e, b), 2)}`,
        `  ${store}: CPU per span stored, server + database: (b) ${fixed(cb.server, 0)} + ${fixed(cb.database, 0)} µs, ` +
          `(e) ${fixed(ce.server, 0)} + ${fixed(ce.database, 0)} µs; OTLP adds ${fixed(ce.server - cb.server, 0)} µs ` +
          `in the server (decoding, mapping, origins) and ${fixed(ce.database - cb.database, 0)} µs in the database`,
      ];
    },
  );
}
