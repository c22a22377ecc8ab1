/**
 * The monitor benchmark (`pnpm bench --suite monitor`): what @pharos/client's monitor costs the application and
 * how fast one monitor delivers.
 *
 * (m1) logSpan + end, application side: traces of 100 spans (a Model content each) logged and ended in a loop by
 *      this process, with nothing sent meanwhile (no tick, no half-full buffer); time per span, trace calls
 *      included, median of the rounds. Target < 5 µs per span.
 * (m2) spans delivered per second through one monitor to the real server on loopback: BENCH_MONITOR_TRACES traces
 *      of 5 Model spans (the (b) payload's spans, ~14 KB per trace) ended as fast as the application can, the
 *      buffer large enough to keep them all; from the first trace ended to the flush that settles the last. At the
 *      default 4 requests in flight and at 16.
 */
import { createPharos, type Monitor } from "@pharos/client";
import { issueKey } from "../../apps/server/src/auth/api-keys.ts";
import { createIdGenerator } from "../../apps/server/src/ids.ts";
import { modelContent, SPANS_PER_TRACE } from "./payload.ts";
import { rssMb, startPharos } from "./processes.ts";
import { loadAverage } from "./report.ts";
import { type Database, postgresDatabase, type StoreName, sqliteDatabase } from "./targets.ts";

const UNLIMITED = "999999999";
const TARGET_US_PER_SPAN = 5;
const SPANS_PER_COST_TRACE = 100;

interface Options {
  stores: StoreName[];
  postgresUrl: string;
  logDir: string;
  quick: boolean;
  rounds: number;
  log(message: string): void;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/** (m1): µs per span of logSpan + end, in rounds of `spans` spans. */
function applicationCost(monitor: Monitor, spans: number): number {
  const content = modelContent(0);
  const start = performance.now();
  for (let t = 0; t < spans / SPANS_PER_COST_TRACE; t++) {
    const trace = monitor.logTrace({ name: "bench", sessionId: "bench-session" });
    for (let s = 0; s < SPANS_PER_COST_TRACE; s++) {
      trace.logSpan({ name: "llm-call", content, attributes: { "llm.attempt": s } }).end({ status: "success" });
    }
    trace.end({ status: "success" });
  }
  return ((performance.now() - start) * 1_000) / spans;
}

/** (m2): spans stored per second through one monitor with `concurrency` requests in flight. */
async function delivery(baseUrl: string, apiKey: string, projectId: string, traces: number, concurrency: number) {
  const monitor = createPharos({ baseUrl, apiKey }).initMonitor({
    projectId,
    maxBufferSize: traces * (SPANS_PER_TRACE + 1),
    maxConcurrentRequests: concurrency,
    flushOnExit: false,
  });
  const contents = Array.from({ length: SPANS_PER_TRACE }, (_, index) => modelContent(index));
  const start = performance.now();
  for (let t = 0; t < traces; t++) {
    const trace = monitor.logTrace({ name: "support-chat", attributes: { "user.plan": "pro" }, tags: ["bench"] });
    for (const content of contents) trace.logSpan({ name: "llm-call", content }).end({ status: "success" });
    trace.end({ status: "success" });
  }
  await monitor.flush({ timeoutMs: 600_000 });
  const seconds = (performance.now() - start) / 1_000;
  const status = monitor.status();
  await monitor.shutdown({ timeoutMs: 1_000 });
  const spans = status.sent - Math.round(status.sent / (SPANS_PER_TRACE + 1));
  return { spansPerSecond: spans / seconds, tracesPerSecond: status.sent / (SPANS_PER_TRACE + 1) / seconds, status };
}

async function measureStore(store: StoreName, options: Options, traces: number, lines: string[]) {
  let database: Database;
  try {
    database = store === "sqlite" ? sqliteDatabase(options.logDir) : await postgresDatabase(options.postgresUrl);
  } catch (error) {
    lines.push(`${store.padEnd(9)} (m2) not available: ${(error as Error).message.slice(0, 100)}`);
    return;
  }
  const apiKey = issueKey(createIdGenerator(Date.now)("apiKey")).key;
  const server = await startPharos(
    `pharos-monitor-${store}`,
    {
      DATABASE_URL: database.url,
      PHAROS_BOOTSTRAP_API_KEY: apiKey,
      PHAROS_RATE_LIMIT_LOG_TRACES: UNLIMITED,
      PHAROS_RATE_LIMIT_LOG_SPANS: UNLIMITED,
      PHAROS_RATE_LIMIT_OTHER: UNLIMITED,
      LOG_LEVEL: "info",
    },
    options.logDir,
  );
  try {
    const baseUrl = `${server.url}/v2`;
    const projects = (await (
      await fetch(`${baseUrl}/projects`, { headers: { Authorization: `Bearer ${apiKey}` } })
    ).json()) as { projects: { id: string }[] };
    const projectId = projects.projects[0]?.id as string;
    await delivery(baseUrl, apiKey, projectId, Math.min(100, traces), 4); // warm-up
    for (const concurrency of [4, 16]) {
      const samples = [];
      for (let round = 0; round < options.rounds; round++) {
        samples.push(await delivery(baseUrl, apiKey, projectId, traces, concurrency));
      }
      const lost = samples.reduce((sum, s) => sum + s.status.dropped + s.status.failed, 0);
      lines.push(
        `${store.padEnd(9)} (m2) delivered, ${String(concurrency).padStart(2)} requests in flight   ` +
          `${Math.round(median(samples.map((s) => s.spansPerSecond)))
            .toLocaleString("en")
            .padStart(7)} spans/s ` +
          `(${Math.round(median(samples.map((s) => s.tracesPerSecond))).toLocaleString("en")} traces/s), ` +
          `server RSS ${rssMb(server.pid).toFixed(0)} MB` +
          (lost > 0 ? `, ${lost} entries dropped or refused: ${samples.at(-1)?.status.lastError?.message}` : ""),
      );
      options.log(`monitor: ${store} at ${concurrency} requests measured`);
    }
  } finally {
    await server.stop();
    await database.dispose();
  }
}

/** Runs the measurements; returns the report's lines. */
export async function benchMonitor(options: Options): Promise<string[]> {
  const spansPerRound = options.quick ? 20_000 : 200_000;
  const traces = Number(process.env.BENCH_MONITOR_TRACES) || (options.quick ? 300 : 2_000);
  const lines = [
    "",
    `Monitor (@pharos/client): median of ${options.rounds} rounds; (m1) ${spansPerRound.toLocaleString("en")} spans ` +
      `per round in traces of ${SPANS_PER_COST_TRACE}, nothing sent meanwhile; (m2) ${traces.toLocaleString("en")} ` +
      `traces of ${SPANS_PER_TRACE} Model spans through one monitor, first end to last acknowledgement; ` +
      `load average (1 min) at start ${loadAverage()}`,
  ];

  // A monitor per round that sends nothing while measured (no tick, a buffer never half full); its entries are
  // dropped after the round. The first round only warms up the JIT.
  const costs: number[] = [];
  for (let round = 0; round <= options.rounds; round++) {
    const idle = createPharos({ baseUrl: "http://127.0.0.1:9/v2", apiKey: "phk_unused" }).initMonitor({
      projectId: "project_01JD8Q4KZ8T6V2M3N4P5Q6R7S8",
      flushIntervalMs: 3_600_000,
      maxBufferSize: Number.MAX_SAFE_INTEGER,
      flushOnExit: false,
    });
    const cost = applicationCost(idle, spansPerRound);
    if (round > 0) costs.push(cost);
    await idle.shutdown({ timeoutMs: 0 });
  }
  const cost = median(costs);
  lines.push(
    `          (m1) logSpan + end, application side   ${cost.toFixed(2).padStart(7)} µs per span   ` +
      `target < ${TARGET_US_PER_SPAN} µs: ${cost < TARGET_US_PER_SPAN ? "met" : "MISS"}`,
  );

  for (const store of options.stores) await measureStore(store, options, traces, lines);
  return lines;
}
