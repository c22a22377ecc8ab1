/**
 * Retention by rows vs by dropped partitions on PostgreSQL (ADR 0027):
 * `pnpm --filter @pharos/bench exec tsx span-partitions.ts <DATABASE_URL> [spans]` (default 200,000 spans).
 *
 * Twice, each time in a fresh schema of the database: a project's `spans` spans (traces of 5, with their
 * attribute and tag rows, as the search bench seeds them) over 30 days, and a retention of 15 days that expires
 * the older half; then the server's own retention pass (`deleteExpiredLogs`, batches as the sweeper runs them)
 * until nothing expired is left, timed, while a writer adds traces of 5 spans at today's time one after another
 * (the log write path's inserts, straight through the store) and a reader searches the project's spans.
 * - `rows`: no day partition holds the seeded rows (they sit in the DEFAULT partitions, as tables without
 *   partitions would hold them): every expired span is deleted by rows, with its side rows, in batches.
 * - `partitions`: the days were made before the seeding (as the sweeper makes them ahead of time): each day
 *   that ended before the cutoff is dropped whole (spans, attribute and tag rows); only the day the cutoff falls
 *   in is deleted by rows, and the expired traces by rows.
 * Printed: time to expire, spans gone by each way, the writer's and reader's latencies meanwhile (and before,
 * idle), and the dead row versions left in the span tables for autovacuum.
 */
import { openPostgresStore, type Store } from "@pharos/server";
import { sql } from "kysely";
import pg from "pg";
import { type SpanInput, spanIndexRows, toSpanRow } from "../../apps/server/src/services/logs/log-rows.ts";
import { checkContent } from "../../apps/server/src/services/logs/span-content.ts";
import { DAY_MS, deleteExpiredLogs } from "../../apps/server/src/services/retention/delete-expired-logs.ts";
import { dropExpiredPartitions } from "../../apps/server/src/services/retention/span-partitions.ts";
import { SPAN_PARTITION_MS } from "../../apps/server/src/store/span-partitions.ts";
import { idMaker } from "./ids.ts";
import { SEED_DAYS, seedSpans } from "./seed.ts";

const [databaseUrl, spansArgument] = process.argv.slice(2);
if (!databaseUrl?.startsWith("postgres")) {
  process.stderr.write("usage: tsx span-partitions.ts <postgres DATABASE_URL> [spans]\n");
  process.exit(2);
}
const SPANS = Number(spansArgument ?? 200_000);

async function admin(statement: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

interface Latencies {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

function summarize(samples: number[]): Latencies {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? 0 };
}

/** Runs `work` back to back until `stop` resolves; answers each run's ms. */
async function repeatUntil(stop: Promise<unknown>, work: () => Promise<void>): Promise<number[]> {
  let done = false;
  stop.then(
    () => (done = true),
    () => (done = true),
  );
  const samples: number[] = [];
  while (!done) {
    const started = performance.now();
    await work();
    samples.push(performance.now() - started);
  }
  return samples;
}

/** One trace of 5 spans at `now`, written as the log write path writes it: one transaction. */
function writer(store: Store, workspaceId: string, projectId: string) {
  const newId = idMaker();
  const content = checkContent({ type: "Tool", input: "{}", output: "{}" }, "content", []);
  if (!content) throw new Error("the writer's span content does not check");
  return async () => {
    const now = Date.now();
    const traceId = newId("trace");
    const spans = Array.from({ length: 5 }, (_, i) => {
      const input = {
        name: `live-${i}`,
        status: "success",
        startedAt: now + i,
        endedAt: now + i + 100,
        attributes: { "user.plan": "pro", step: i },
        tags: ["live"],
      } as SpanInput;
      const row = toSpanRow({ id: newId("span"), workspaceId, projectId, traceId, now }, input, content);
      return { row, index: spanIndexRows(row, input) };
    });
    await store.transaction(store.db, async (trx) => {
      await store.insertRows(trx, "logTraces", [
        {
          id: traceId,
          workspaceId,
          projectId,
          name: "live",
          status: "success",
          startedAt: now,
          endedAt: now + 200,
          latency: 200,
          referenceId: null,
          sessionId: null,
          userId: null,
          attributes: "{}",
          tags: "[]",
          spanIds: JSON.stringify(spans.map((span) => span.row.id)),
          totalCost: 0,
          totalInputTokens: 0,
          totalOutputTokens: 0,
          createdAt: now,
          updatedAt: now,
        },
      ]);
      await store.insertRows(
        trx,
        "logSpans",
        spans.map((span) => span.row),
      );
      await store.insertRows(
        trx,
        "logAttributes",
        spans.flatMap((span) => span.index.attributes),
      );
      await store.insertRows(
        trx,
        "logTags",
        spans.flatMap((span) => span.index.tags),
      );
    });
  };
}

function reader(store: Store, projectId: string) {
  return async () => {
    await store.db
      .selectFrom("logSpans")
      .selectAll()
      .where("projectId", "=", projectId)
      .orderBy("startedAt", "desc")
      .orderBy("id", "desc")
      .limit(50)
      .execute();
  };
}

interface DeadRows {
  spans: number;
  sides: number;
  traces: number;
}

/** Dead row versions autovacuum has to clear: in the span tables, the attribute and tag tables, the traces. */
async function deadRows(store: Store): Promise<DeadRows> {
  await sql`select pg_stat_force_next_flush()`.execute(store.db);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const { rows } = await sql<DeadRows>`
    select coalesce(sum(n_dead_tup) filter (where relname like 'logSpans%'), 0)::int as spans,
      coalesce(sum(n_dead_tup) filter (where relname like 'logAttributes%' or relname like 'logTags%'), 0)::int
        as sides,
      coalesce(sum(n_dead_tup) filter (where relname = 'logTraces'), 0)::int as traces
    from pg_stat_user_tables where schemaname = current_schema()`.execute(store.db);
  return rows[0] ?? { spans: 0, sides: 0, traces: 0 };
}

async function run(mode: "rows" | "partitions") {
  const schema = `bench_partitions_${mode}_${process.pid}`;
  await admin(`create schema ${schema}`);
  const store = openPostgresStore(databaseUrl as string, { schema });
  try {
    await store.migrate();
    await sql`insert into "workspaces" ("id", "name", "createdAt", "updatedAt") values ('w', 'bench', 0, 0)`.execute(
      store.db,
    );
    await sql`insert into "projects" ("id", "workspaceId", "title", "icon", "createdAt", "updatedAt")
      values ('p', 'w', 'bench', 'x', 0, 0)`.execute(store.db);
    const now = Date.now();
    const from = now - SEED_DAYS * DAY_MS - 3_600_000;
    if (mode === "partitions") await store.spanPartitions?.prepare(from, now + 2 * SPAN_PARTITION_MS);
    await seedSpans(store, { projectId: "p", spans: SPANS, from });
    await sql`analyze`.execute(store.db);
    const write = writer(store, "w", "p");
    const read = reader(store, "p");

    // Idle: the writer and the reader alone, for 3 s.
    const idle = new Promise((resolve) => setTimeout(resolve, 3000));
    const [idleWrites, idleReads] = await Promise.all([repeatUntil(idle, write), repeatUntil(idle, read)]);

    await sql`update "projects" set "retentionDays" = 15 where "id" = 'p'`.execute(store.db);
    // The seeded spans only (the writer's start at `now` or later).
    const seeded = sql`"startedAt" < ${now}`;
    const before = await sql<{ n: number }>`select count(*)::int as n from "logSpans" where ${seeded}`.execute(
      store.db,
    );
    const perPartition = await sql<{ partition: string; n: number }>`
      select tableoid::regclass::text as partition, count(*)::int as n from "logSpans" where ${seeded} group by 1`.execute(
      store.db,
    );
    const started = performance.now();
    const expiry = (async () => {
      const total = { partitions: 0, traces: 0, spans: 0, dropSeconds: 0 };
      // The days first, as a pass does, timed on their own.
      const dropping = performance.now();
      const dropped = await dropExpiredPartitions(store, new Map([["p", now - 15 * DAY_MS]]));
      total.dropSeconds = (performance.now() - dropping) / 1000;
      total.partitions += dropped.partitions;
      for (;;) {
        const pass = await deleteExpiredLogs({
          store,
          now,
          maxBatches: 10,
          pause: () => new Promise((resolve) => setImmediate(resolve)),
        });
        total.partitions += pass.partitions;
        total.traces += pass.traces;
        total.spans += pass.spans;
        if (!pass.more) return total;
      }
    })();
    const [expired, writes, reads] = await Promise.all([expiry, repeatUntil(expiry, write), repeatUntil(expiry, read)]);
    const seconds = (performance.now() - started) / 1000;
    const after = await sql<{ n: number }>`select count(*)::int as n from "logSpans" where ${seeded}`.execute(store.db);
    const gone = (before.rows[0]?.n ?? 0) - (after.rows[0]?.n ?? 0);
    const { rows: left } = await sql<{ name: string }>`
      select quote_ident(c.relname) as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent = '"logSpans"'::regclass`.execute(store.db);
    const kept = new Set(left.map((row) => row.name));
    const dropped = perPartition.rows.filter((row) => !kept.has(row.partition)).reduce((sum, row) => sum + row.n, 0);
    return {
      mode,
      seconds,
      gone,
      dropped,
      expired,
      dead: await deadRows(store),
      idle: { writes: summarize(idleWrites), reads: summarize(idleReads) },
      during: { writes: summarize(writes), reads: summarize(reads) },
    };
  } finally {
    await store.close();
    await admin(`drop schema ${schema} cascade`);
  }
}

const ms = (l: Latencies) =>
  `p50 ${l.p50.toFixed(1)} / p99 ${l.p99.toFixed(1)} / max ${l.max.toFixed(1)} ms (${l.count})`;
const lines = [`Retention of the older half of ${SPANS.toLocaleString("en")} spans over ${SEED_DAYS} days (ADR 0027)`];
for (const mode of ["rows", "partitions"] as const) {
  const r = await run(mode);
  lines.push(
    `  ${mode}: ${r.gone.toLocaleString("en")} spans gone in ${r.seconds.toFixed(2)} s ` +
      `(${Math.round(r.gone / Math.max(r.seconds, 0.001)).toLocaleString("en")} spans/s): ` +
      `${r.dropped.toLocaleString("en")} in ${r.expired.partitions} dropped days ` +
      `(${r.expired.dropSeconds.toFixed(2)} s), ` +
      `${(r.gone - r.dropped).toLocaleString("en")} deleted by rows; ` +
      `${r.expired.traces.toLocaleString("en")} traces deleted`,
    `    dead row versions left: ${r.dead.spans.toLocaleString("en")} spans, ` +
      `${r.dead.sides.toLocaleString("en")} attribute and tag rows, ${r.dead.traces.toLocaleString("en")} traces`,
    `    writes (trace of 5 spans): idle ${ms(r.idle.writes)}; during ${ms(r.during.writes)}`,
    `    reads (50 newest spans):   idle ${ms(r.idle.reads)}; during ${ms(r.during.reads)}`,
  );
  process.stdout.write(`${lines.splice(0).join("\n")}\n`);
}
