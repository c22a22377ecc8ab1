/**
 * (h) Retention by rows vs by dropped partitions on PostgreSQL (ADR 0027), after the rounds, in the run's
 * database (`pnpm bench`: PARTITION_SPANS spans, a fifth of BENCH_SPANS, options.ts).
 *
 * Twice, each time in a fresh schema of the database: the partitions of the seed's days and the next two are
 * made (as the sweeper makes days ahead of time), then a project's `spans` spans are seeded (traces of 5, with their
 * attribute and tag rows, as the search bench seeds them) over 30 days, and a retention of 15 days expires the
 * older half; then the server's own retention pass (`deleteExpiredLogs`, batches as the sweeper runs them)
 * until nothing expired is left, timed, while a writer adds traces of 5 spans at today's time one after another
 * (the log write path's inserts, straight through the store) and a reader pages the project's 50 newest spans.
 * - `rows`: the passes run on the store without its `spanPartitions` (as on a store that has none): every
 *   expired span is deleted by rows, with its side rows, in batches.
 * - `partitions`: each day that ended before the cutoff is dropped whole (spans, attribute and tag rows), timed
 *   on its own first; only the day the cutoff falls in is deleted by rows, and the expired traces by rows.
 * Both ways seed the same partitions, so the reader and the writer meet the same tables: what differs is the
 * expiry alone. Measured: time to expire, spans gone by each way, the writer's and reader's latencies meanwhile
 * (and before, idle), and the dead row versions left for autovacuum. SQLite has no partitions.
 *
 * Standalone: `pnpm --filter @pharos/bench exec tsx span-partitions.ts <postgres DATABASE_URL> [spans]`
 * (default 200,000 spans, 3 s idle).
 */
import { openPostgresStore, type Store } from "@pharos/server";
import { sql } from "kysely";
import pg from "pg";
import { type SpanInput, spanIndexRows, toSpanRow } from "../../apps/server/src/services/logs/log-rows.ts";
import { checkContent } from "../../apps/server/src/services/logs/span-content.ts";
import { DAY_MS, deleteExpiredLogs } from "../../apps/server/src/services/retention/delete-expired-logs.ts";
import { dropExpiredPartitions } from "../../apps/server/src/services/retention/span-partitions.ts";
import { idMaker } from "./ids.ts";
import { SEED_DAYS, seedSpans } from "./seed.ts";
import type { StoreName } from "./targets.ts";

const RETENTION_DAYS = 15;
const WAYS = ["rows", "partitions"] as const;

/** One statement on a connection of its own (in `schema`, if given); answers its rows. */
async function query<Row>(databaseUrl: string, statement: string, schema?: string): Promise<Row[]> {
  const client = new pg.Client({
    connectionString: databaseUrl,
    ...(schema && { options: `-c search_path=${schema}` }),
  });
  await client.connect();
  try {
    return (await client.query(statement)).rows;
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
  /** Tables (partitions) autovacuum vacuumed since the expiry began: the dead rows it cleared are not counted. */
  vacuumed: number;
}

/**
 * Dead row versions autovacuum has to clear, in the span tables, the attribute and tag tables and the traces
 * (each partitioned table with whatever partitions it has left). A connection adds its figures to these
 * counters when it ends (or after ~10 s idle): read them once the store's connections have all ended.
 */
async function deadRows(databaseUrl: string, schema: string, since: Date): Promise<DeadRows> {
  await new Promise((resolve) => setTimeout(resolve, 1000));
  // A table and its partitions (pg_partition_tree lists nothing for a table without partitions).
  const tables = (...names: string[]) =>
    `(${names.map((name) => `select relid from pg_partition_tree('"${name}"') union select '"${name}"'::regclass`).join(" union ")})`;
  const dead = (...names: string[]) =>
    `(select coalesce(sum(n_dead_tup), 0)::int from pg_stat_user_tables where relid in ${tables(...names)})`;
  const [row] = await query<DeadRows>(
    databaseUrl,
    `select ${dead("logSpans")} as spans, ${dead("logAttributes", "logTags")} as sides, ${dead("logTraces")} as traces,
      (select count(*)::int from pg_stat_user_tables
        where relid in ${tables("logSpans", "logAttributes", "logTags", "logTraces")}
        and last_autovacuum >= '${since.toISOString()}') as vacuumed`,
    schema,
  );
  return row ?? { spans: 0, sides: 0, traces: 0, vacuumed: 0 };
}

/** One way of expiring the older half of the seed. */
export interface Expiry {
  way: (typeof WAYS)[number];
  seedSeconds: number;
  /** Time to expire everything expired. */
  seconds: number;
  /** Seeded spans gone. */
  gone: number;
  /**
   * Of them, those dropped with their days by the first dropping (timed on its own: `dropSeconds`); the rest
   * went by rows (and so would a day a later pass drops, having failed to lock it in time before).
   */
  dropped: number;
  days: number;
  dropSeconds: number;
  traces: number;
  dead: DeadRows;
  idle: { writes: Latencies; reads: Latencies };
  during: { writes: Latencies; reads: Latencies };
}

async function expire(databaseUrl: string, way: Expiry["way"], spans: number, idleSeconds: number): Promise<Expiry> {
  const schema = `bench_partitions_${way}_${process.pid}`;
  await query(databaseUrl, `create schema ${schema}`);
  const store = openPostgresStore(databaseUrl, { schema });
  let open = true;
  const close = async () => {
    if (open) await store.close();
    open = false;
  };
  try {
    await store.migrate();
    await sql`insert into "workspaces" ("id", "name", "createdAt", "updatedAt") values ('w', 'bench', 0, 0)`.execute(
      store.db,
    );
    await sql`insert into "projects" ("id", "workspaceId", "title", "icon", "createdAt", "updatedAt")
      values ('p', 'w', 'bench', 'x', 0, 0)`.execute(store.db);
    const now = Date.now();
    const from = now - SEED_DAYS * DAY_MS - 3_600_000;
    await store.spanPartitions?.prepare(from, now + 2 * DAY_MS);
    const seed = await seedSpans(store, { projectId: "p", spans, from });
    await sql`analyze`.execute(store.db);
    const write = writer(store, "w", "p");
    const read = reader(store, "p");

    // Idle: the writer and the reader alone.
    const idle = new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
    const [idleWrites, idleReads] = await Promise.all([repeatUntil(idle, write), repeatUntil(idle, read)]);

    await sql`update "projects" set "retentionDays" = ${RETENTION_DAYS} where "id" = 'p'`.execute(store.db);
    // The seeded spans only (the writer's start at `now` or later).
    const seeded = sql`"startedAt" < ${now}`;
    const count = async () =>
      (await sql<{ n: number }>`select count(*)::int as n from "logSpans" where ${seeded}`.execute(store.db)).rows[0]
        ?.n ?? 0;
    const before = await count();
    // By rows: the same passes on the store without its partitions.
    const expiring: Store = way === "rows" ? { ...store, spanPartitions: undefined } : store;
    const startedAt = new Date();
    const started = performance.now();
    const expiry = (async () => {
      const total = { days: 0, dropped: 0, traces: 0, dropSeconds: 0 };
      // The days first, as a pass does, timed on their own.
      const dropping = performance.now();
      const dropped = await dropExpiredPartitions(expiring, new Map([["p", now - RETENTION_DAYS * DAY_MS]]));
      total.dropSeconds = (performance.now() - dropping) / 1000;
      total.days += dropped.partitions;
      total.dropped += dropped.spans;
      for (;;) {
        const pass = await deleteExpiredLogs({
          store: expiring,
          now,
          maxBatches: 10,
          pause: () => new Promise((resolve) => setImmediate(resolve)),
        });
        total.traces += pass.traces;
        if (!pass.more) return total;
      }
    })();
    const [expired, writes, reads] = await Promise.all([expiry, repeatUntil(expiry, write), repeatUntil(expiry, read)]);
    const seconds = (performance.now() - started) / 1000;
    const gone = before - (await count());
    await close();
    return {
      way,
      seedSeconds: seed.seconds,
      seconds,
      gone,
      ...expired,
      dead: await deadRows(databaseUrl, schema, startedAt),
      idle: { writes: summarize(idleWrites), reads: summarize(idleReads) },
      during: { writes: summarize(writes), reads: summarize(reads) },
    };
  } finally {
    await close();
    await query(databaseUrl, `drop schema ${schema} cascade`);
  }
}

export interface PartitionRetentionResult {
  store: StoreName;
  spans: number;
  ways: Expiry[];
  problem?: string;
}

/** Both ways on a PostgreSQL database, one after the other; on SQLite, that it has no partitions. */
export async function measurePartitionRetention(
  store: StoreName,
  databaseUrl: string,
  options: { spans: number; idleSeconds: number },
): Promise<PartitionRetentionResult> {
  const result: PartitionRetentionResult = { store, spans: options.spans, ways: [] };
  if (store !== "postgres") {
    return { ...result, problem: "no partitions: its spans are one table, which retention deletes by rows (above)" };
  }
  for (const way of WAYS) result.ways.push(await expire(databaseUrl, way, options.spans, options.idleSeconds));
  return result;
}

export function printPartitionRetention(results: PartitionRetentionResult[]) {
  if (results.length === 0) return;
  const spans = results.find((r) => r.ways.length > 0)?.spans;
  const lines = [
    "",
    "(h) Retention by rows vs by dropped partitions (ADR 0027)" +
      (spans === undefined
        ? ""
        : `: the older half of ${spans.toLocaleString("en")} spans over ${SEED_DAYS} days expired ` +
          `(${RETENTION_DAYS}-day retention) by the sweeper's passes, each way in a fresh schema with the days' ` +
          "partitions, while a writer adds traces of 5 spans and a reader pages the 50 newest spans"),
  ];
  const count = (n: number) => n.toLocaleString("en");
  const ms = (n: number) => n.toFixed(1);
  for (const r of results) {
    if (r.problem) {
      lines.push(`  ${r.store}: ${r.problem}`);
      continue;
    }
    for (const e of r.ways) {
      const ways =
        e.days > 0
          ? `${count(e.dropped)} dropped with ${e.days} days (${e.dropSeconds.toFixed(2)} s), ` +
            `${count(e.gone - e.dropped)} deleted by rows`
          : "all deleted by rows";
      lines.push(
        `  ${r.store} by ${e.way}: ${count(e.gone)} spans in ${e.seconds.toFixed(2)} s ` +
          `(${count(Math.round(e.gone / Math.max(e.seconds, 0.001)))} spans/s): ${ways}; ` +
          `${count(e.traces)} traces deleted (seeded in ${e.seedSeconds.toFixed(0)} s)`,
        `    meanwhile: writes p99 / max ${ms(e.during.writes.p99)} / ${ms(e.during.writes.max)} ms ` +
          `(idle ${ms(e.idle.writes.p99)} / ${ms(e.idle.writes.max)}), reads p99 ${ms(e.during.reads.p99)} ms ` +
          `(idle ${ms(e.idle.reads.p99)}); ${count(e.during.writes.count)} traces written, ` +
          `${count(e.during.reads.count)} pages read`,
        `    dead row versions left: ${count(e.dead.spans)} spans, ${count(e.dead.sides)} attribute and tag rows, ` +
          `${count(e.dead.traces)} traces` +
          (e.dead.vacuumed > 0 ? ` (autovacuum cleared ${e.dead.vacuumed} of their tables meanwhile)` : ""),
      );
    }
  }
  process.stdout.write(`${lines.join("\n")}\n`);
}

// Standalone use: both ways on the given database.
if (import.meta.url === `file://${process.argv[1]}`) {
  const [databaseUrl, spans = "200000"] = process.argv.slice(2);
  if (!databaseUrl?.startsWith("postgres")) {
    process.stderr.write("usage: tsx span-partitions.ts <postgres DATABASE_URL> [spans]\n");
    process.exit(2);
  }
  printPartitionRetention([
    await measurePartitionRetention("postgres", databaseUrl, { spans: Number(spans), idleSeconds: 3 }),
  ]);
}
