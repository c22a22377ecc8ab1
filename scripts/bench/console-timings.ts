/**
 * The console's timings on a big project (issue 19, ADR 0022), in headless Debian Chromium (playwright-core)
 * against the real server process (`node apps/server/dist/main.js`, serving apps/console/dist):
 * (c1) from navigation to the first trace rows rendered, on a project of BENCH_SPANS spans (seed.ts);
 * (c2) from navigation to a 1,000-span trace's tree and its first span's panel rendered;
 * (c3) the same for a trace of 10,000 spans, the most a trace may hold (written in one OTLP request).
 * Each visit is a fresh browser context (no cache, the key put in session storage as sign-in does), VISITS times;
 * the median and the slowest are printed against the target of under 1 s each.
 *
 * Standalone: `tsx scripts/bench/console-timings.ts [--quick] [--stores sqlite,postgres]` (builds the server and
 * the console first).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { adminContext, createApiKey, createProjectForWorkspace, createWorkspace, openStore } from "@pharos/server";
import { type Browser, chromium } from "playwright-core";
import { benchConsole } from "./console.ts";
import { LOG_LEVEL, POSTGRES_URL, quick, SEED_SPANS, stores } from "./options.ts";
import { buildServer, startPharos } from "./processes.ts";
import { seedSpans } from "./seed.ts";
import { analyzePostgres, type Database, postgresDatabase, type StoreName, sqliteDatabase } from "./targets.ts";

const CHROMIUM = process.env.PHAROS_CHROMIUM ?? "/usr/bin/chromium";
const VISITS = quick ? 3 : 7;
const TARGET_MS = 1_000;
const TRACE_SPANS = 1_000;
const LARGE_TRACE_SPANS = 10_000;
/** The session storage entry sign-in writes (apps/console/src/session.ts). */
const KEY_ENTRY = "pharos.apiKey";

interface Timing {
  medianMs: number;
  slowestMs: number;
}

export interface ConsoleTimings {
  store: StoreName;
  spans: number;
  firstRows: Timing;
  traceTree: Timing;
  largeTraceTree: Timing;
}

/** A trace of TRACE_SPANS spans: a root agent span, steps under it, a Model call and a tool call under each step. */
function bigTraceBody(projectId: string, startedAt: number) {
  const text = (value: string) => [{ modality: "text", value }];
  const spans: Record<string, unknown>[] = [
    {
      name: "agent",
      referenceId: "root",
      status: "success",
      startedAt,
      endedAt: startedAt + 60_000,
      content: { type: "Function", input: '{"task":"resolve the ticket"}', output: '{"resolved":true}' },
    },
  ];
  for (let step = 0; spans.length < TRACE_SPANS; step++) {
    const at = startedAt + step * 150;
    spans.push({
      name: `step-${step}`,
      referenceId: `step-${step}`,
      parentReferenceId: "root",
      status: "success",
      startedAt: at,
      endedAt: at + 140,
      content: { type: "Function", input: JSON.stringify({ step }), output: "{}" },
    });
    if (spans.length < TRACE_SPANS) {
      spans.push({
        name: "llm-call",
        referenceId: `llm-${step}`,
        parentReferenceId: `step-${step}`,
        status: "success",
        startedAt: at + 5,
        endedAt: at + 100,
        content: {
          type: "Model",
          provider: "openai",
          model: "gpt-4o-mini",
          input: JSON.stringify({ messages: [{ role: "user", content: text(`Step ${step}: what next?`) }] }),
          output: JSON.stringify({
            messages: [{ role: "assistant", content: text("Look the order up.") }],
            tokenUsage: { promptTokens: 9, completionTokens: 5, totalTokens: 14 },
          }),
        },
      });
    }
    if (spans.length < TRACE_SPANS) {
      spans.push({
        name: "lookup_order",
        referenceId: `tool-${step}`,
        parentReferenceId: `step-${step}`,
        status: "success",
        startedAt: at + 101,
        endedAt: at + 139,
        content: { type: "Tool", input: JSON.stringify({ orderId: step }), output: JSON.stringify({ ok: true }) },
      });
    }
  }
  return {
    projectId,
    trace: {
      name: "long-agent-run",
      referenceId: "bench-big-trace",
      status: "success",
      startedAt,
      endedAt: startedAt + 60_000,
    },
    spans,
  };
}

/** An OTLP/JSON request of one trace of LARGE_TRACE_SPANS spans: a root and its steps, a millisecond apart. */
function largeTraceBody(projectId: string, startedAt: number) {
  const hex = (value: number, length: number) => value.toString(16).padStart(length, "0");
  const nanos = (ms: number) => `${BigInt(ms) * 1_000_000n}`;
  const traceId = hex(startedAt, 32);
  const spans = Array.from({ length: LARGE_TRACE_SPANS }, (_, i) => ({
    traceId,
    spanId: hex(i + 1, 16),
    ...(i > 0 && { parentSpanId: hex(1, 16) }),
    name: i === 0 ? "large-agent-run" : `step-${i}`,
    kind: 1,
    startTimeUnixNano: nanos(startedAt + i),
    endTimeUnixNano: nanos(i === 0 ? startedAt + LARGE_TRACE_SPANS + 1 : startedAt + i + 1),
  }));
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: "pharos.project.id", value: { stringValue: projectId } }] },
        scopeSpans: [{ scope: { name: "console-bench" }, spans }],
      },
    ],
  };
}

async function timeVisits(browser: Browser, key: string, url: string, readySelectors: string[]): Promise<Timing> {
  const times: number[] = [];
  for (let visit = 0; visit < VISITS; visit++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addInitScript({
      content: `sessionStorage.setItem(${JSON.stringify(KEY_ENTRY)}, ${JSON.stringify(key)})`,
    });
    const page = await context.newPage();
    const started = performance.now();
    await page.goto(url);
    for (const selector of readySelectors) await page.locator(selector).first().waitFor({ timeout: 60_000 });
    times.push(performance.now() - started);
    await context.close();
  }
  times.sort((a, b) => a - b);
  return { medianMs: times[Math.floor(times.length / 2)] as number, slowestMs: times[times.length - 1] as number };
}

async function measureStore(
  name: StoreName,
  browser: Browser,
  log: (message: string) => void,
): Promise<ConsoleTimings> {
  const logDir = mkdtempSync(join(tmpdir(), "pharos-bench-console-"));
  const database: Database = name === "sqlite" ? sqliteDatabase(logDir) : await postgresDatabase(POSTGRES_URL);
  try {
    const store = openStore(database.url);
    await store.migrate();
    const admin = adminContext(store);
    const workspace = await createWorkspace(admin, "Console bench");
    const project = await createProjectForWorkspace(admin, workspace.id, "Console bench");
    const { key } = await createApiKey(admin, {
      workspaceId: workspace.id,
      name: "console bench",
      role: "full",
      projectIds: null,
    });
    log(`${name}: seeding ${SEED_SPANS.toLocaleString("en")} spans`);
    const seed = await seedSpans(store, { projectId: project.id, spans: SEED_SPANS });
    await store.close();
    if (name === "postgres") await analyzePostgres(database.url);
    const server = await startPharos(`console-${name}`, { DATABASE_URL: database.url, LOG_LEVEL }, logDir);
    try {
      // The big trace is the newest, so it also heads the list the first visit renders.
      const written = await fetch(`${server.url}/v2/logs/trace`, {
        method: "POST",
        headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
        body: JSON.stringify(bigTraceBody(project.id, seed.to)),
      });
      if (written.status !== 200) throw new Error(`writing the big trace: ${written.status} ${await written.text()}`);
      const { traceId } = (await written.json()) as { traceId: string };
      const post = (path: string, body: unknown) =>
        fetch(`${server.url}/v2${path}`, {
          method: "POST",
          headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
          body: JSON.stringify(body),
        });
      const large = await post("/otel/v1/traces", largeTraceBody(project.id, seed.to - 3_600_000));
      if (large.status !== 200) throw new Error(`writing the large trace: ${large.status} ${await large.text()}`);
      const found = await post("/logs/traces", { projectId: project.id, name: "large-agent-run", limit: 1 });
      const largeTraceId = ((await found.json()) as { traces: { id: string }[] }).traces[0]?.id;
      if (!largeTraceId) throw new Error("the large trace was not found");
      log(`${name}: timing ${VISITS} visits of each screen`);
      const firstRows = await timeVisits(browser, key as string, `${server.url}/?project=${project.id}`, [
        'section[aria-label="Trace list"] tbody tr',
      ]);
      const traceTree = await timeVisits(
        browser,
        key as string,
        `${server.url}/traces/${traceId}?project=${project.id}`,
        ['nav[aria-label="Span tree"] .span-row', "#span-title"],
      );
      const largeTraceTree = await timeVisits(
        browser,
        key as string,
        `${server.url}/traces/${largeTraceId}?project=${project.id}`,
        ['nav[aria-label="Span tree"] .span-row', "#span-title"],
      );
      return { store: name, spans: seed.spans + TRACE_SPANS + LARGE_TRACE_SPANS, firstRows, traceTree, largeTraceTree };
    } finally {
      await server.stop();
    }
  } finally {
    await database.dispose();
    rmSync(logDir, { recursive: true, force: true });
  }
}

export async function benchConsoleTimings(log: (message: string) => void): Promise<string[]> {
  const browser = await chromium.launch({ executablePath: CHROMIUM });
  const results: ConsoleTimings[] = [];
  try {
    for (const name of stores) results.push(await measureStore(name, browser, log));
  } finally {
    await browser.close();
  }
  const verdict = (timing: Timing) => (timing.slowestMs < TARGET_MS ? "met" : "MISSED");
  const cell = (timing: Timing) => `${timing.medianMs.toFixed(0)} / ${timing.slowestMs.toFixed(0)}`;
  return [
    "",
    `Console timings in headless Chromium, median / slowest of ${VISITS} fresh visits, ms (target < ${TARGET_MS} ms)`,
    "| database | spans in project | (c1) first trace rows | (c2) 1,000-span trace: tree and first span | (c3) 10,000-span trace: tree and first span |",
    "|---|---|---|---|---|",
    ...results.map(
      (r) =>
        `| ${r.store} | ${r.spans.toLocaleString("en")} | ${cell(r.firstRows)} (${verdict(r.firstRows)}) | ${cell(r.traceTree)} (${verdict(r.traceTree)}) | ${cell(r.largeTraceTree)} (${verdict(r.largeTraceTree)}) |`,
    ),
  ];
}

// Standalone use: build what `pnpm start` builds, then measure.
if (import.meta.url === `file://${process.argv[1]}`) {
  const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);
  buildServer();
  process.stdout.write(`${benchConsole(log).join("\n")}\n`);
  process.stdout.write(`${(await benchConsoleTimings(log)).join("\n")}\n`);
}
