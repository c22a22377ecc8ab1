/**
 * (h) Retention (ADR 0019): after the rounds, the seeded search project gets a retention that expires the older
 * half of its spans, and this process runs the server's own deletion (the sweeper's passes, in batches) on the
 * database until nothing expired is left, timing it; a search runs between batches to show reads go on. The
 * server's own sweeper may take some batches meanwhile (it wakes every minute): the figures count every row
 * that went, whoever deleted it.
 */
import { openStore } from "@pharos/server";
import { DAY_MS, deleteExpiredLogs } from "../../apps/server/src/services/retention/delete-expired-logs.ts";
import type { StoreName } from "./targets.ts";

export interface RetentionRequest {
  url: string;
  key: string;
  databaseUrl: string;
  projectId: string;
  /** When the seeded spans start; they span SEED_DAYS days. */
  from: number;
}

export interface RetentionResult {
  store: StoreName;
  traces: number;
  spans: number;
  seconds: number;
  /** Slowest search answered between batches, ms. */
  slowestSearchMs: number;
  problem?: string;
}

async function count(store: ReturnType<typeof openStore>, table: "logTraces" | "logSpans", projectId: string) {
  const row = await store.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("projectId", "=", projectId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function measureRetention(store: StoreName, request: RetentionRequest): Promise<RetentionResult> {
  const now = Date.now();
  // The seed spans 30 days from `from`: keep the newer half.
  const retentionDays = Math.max(1, Math.ceil((now - request.from) / DAY_MS) - 15);
  const patch = await fetch(`${request.url}/v2/projects/${request.projectId}`, {
    method: "PATCH",
    headers: { Authorization: `Bearer ${request.key}`, "Content-Type": "application/json" },
    body: JSON.stringify({ retentionDays }),
  });
  const result: RetentionResult = { store, traces: 0, spans: 0, seconds: 0, slowestSearchMs: 0 };
  if (!patch.ok) return { ...result, problem: `not available (PATCH ${patch.status})` };
  const database = openStore(request.databaseUrl);
  try {
    const before = { traces: await count(database, "logTraces", request.projectId), spans: 0 };
    before.spans = await count(database, "logSpans", request.projectId);
    const search = async () => {
      const started = performance.now();
      await fetch(`${request.url}/v2/logs/spans`, {
        method: "POST",
        headers: { Authorization: `Bearer ${request.key}`, "Content-Type": "application/json" },
        body: JSON.stringify({ projectId: request.projectId, limit: 50 }),
      }).then((response) => response.arrayBuffer());
      result.slowestSearchMs = Math.max(result.slowestSearchMs, performance.now() - started);
    };
    const started = performance.now();
    for (;;) {
      const pass = await deleteExpiredLogs({ store: database, now, maxBatches: 10, pause: search });
      if (!pass.more) break;
    }
    result.seconds = (performance.now() - started) / 1000;
    result.traces = before.traces - (await count(database, "logTraces", request.projectId));
    result.spans = before.spans - (await count(database, "logSpans", request.projectId));
    return result;
  } finally {
    await database.close();
  }
}

export function printRetention(results: RetentionResult[]) {
  if (results.length === 0) return;
  const lines = ["", "(h) Retention: the older half of the seeded project expired, deleted in batches (ADR 0019)"];
  for (const r of results) {
    if (r.problem) {
      lines.push(`  ${r.store}: ${r.problem}`);
      continue;
    }
    const rate = (n: number) => Math.round(n / Math.max(r.seconds, 0.001)).toLocaleString("en");
    lines.push(
      `  ${r.store}: ${r.traces.toLocaleString("en")} traces, ${r.spans.toLocaleString("en")} spans in ` +
        `${r.seconds.toFixed(1)} s (${rate(r.traces)} traces/s, ${rate(r.spans)} spans/s); ` +
        `slowest search between batches ${r.slowestSearchMs.toFixed(1)} ms`,
    );
  }
  process.stdout.write(`${lines.join("\n")}\n`);
}
