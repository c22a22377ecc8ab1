/**
 * Retention over PostgreSQL's span time partitions (ADR 0027): a day partition whose spans have all expired
 * is dropped whole — with the side rows, scores and queue rows of its spans, and then the traces they
 * belonged to — while a day shared with a project that keeps its logs stays, its expired spans deleted by rows
 * as before. The same tests run on SQLite, which has no partitions: the same logs go, by rows.
 */
import { type CompiledQuery, sql } from "kysely";
import { expect, it } from "vitest";
import { DAY_MS } from "../../services/retention/delete-expired-logs.ts";
import { partitionName } from "../../store/span-partitions.ts";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore, type Harness } from "../../testing/harness.ts";
import { type Body, createTrace, datedTrace, newProject, postTrace } from "../../testing/log-write-fixtures.ts";
import { explain, recordingApp } from "../../testing/query-plans.ts";
import { createScores } from "../../testing/score-fixtures.ts";
import { RetentionSweeper } from "../../worker/retention-sweeper.ts";

/** The day partitions of `logSpans` (none on SQLite). */
async function partitions(h: Harness): Promise<string[]> {
  return ((await h.store.spanPartitions?.endingBy(Number.MAX_SAFE_INTEGER)) ?? []).map((partition) => partition.name);
}

async function rowCount(
  h: Harness,
  table: "logTraces" | "logSpans" | "logAttributes" | "logTags" | "scores",
  p: string,
) {
  const row = await h.store.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("projectId", "=", p)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function traceNames(h: Harness, projectId: string): Promise<string[]> {
  const reply = await h.request("POST", "/logs/traces", { body: { projectId, limit: 200 } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.traces.map((trace: { name: string }) => trace.name).sort();
}

const setRetention = async (h: Harness, projectId: string, retentionDays: number) =>
  expect((await h.request("PATCH", `/projects/${projectId}`, { body: { retentionDays } })).status).toBe(200);

describeEachStore("span time partitions", (use) => {
  /**
   * Day 0 of each test's time line: midnight UTC, well before the harness clock, and earlier in each test than
   * in the one before, so that a test's sweeps do not reach the days of the tests before it.
   */
  const dayZero = (h: Harness, daysBack: number) => Math.floor(h.now() / DAY_MS) * DAY_MS - daysBack * DAY_MS;

  it("drops a day whose spans all expired (not row by row), keeps shared and newer days, loses nothing else", async () => {
    const h = use();
    const expiring = await newProject(h);
    const keeping = await newProject(h);
    const d0 = dayZero(h, 40);
    // A sweep on day 1 makes the partitions of days 0 to 4 ahead of the writes.
    await new RetentionSweeper({ store: h.store, now: () => d0 + DAY_MS }).sweep();
    if (h.store.dialect === "postgres") {
      expect(await partitions(h)).toEqual(expect.arrayContaining([partitionName(d0), partitionName(d0 + 4 * DAY_MS)]));
    }
    // Day 0: only the expiring project's traces, one with scores on a span and on the trace.
    const old = [];
    for (let i = 0; i < 3; i++)
      old.push(await createTrace(h, datedTrace(h, expiring, d0 + 3_600_000 + i, `day0-${i}`)));
    await createScores(
      h,
      [
        { spanId: old[0]?.spanIds[0], name: "thumbs", value: true },
        { traceId: old[0]?.traceId, name: "overall", value: 0.5 },
      ],
      expiring,
    );
    // Day 1: both projects. Day 3: the expiring project's newer trace, scored. And writes far in the past
    // and far in the future, which no day partition holds (the DEFAULT one takes them).
    await createTrace(h, datedTrace(h, expiring, d0 + DAY_MS + 3_600_000, "day1-expiring"));
    await createTrace(h, datedTrace(h, keeping, d0 + DAY_MS + 7_200_000, "day1-keeping"));
    const newer = await createTrace(h, datedTrace(h, expiring, d0 + 3 * DAY_MS + 3_600_000, "day3"));
    await createScores(h, [{ spanId: newer.spanIds[0], name: "thumbs", value: false }], expiring);
    // The earliest and latest times the API takes (Timestamp).
    for (const [label, startedAt] of [
      ["far-past", 1_672_511_400_000],
      ["far-future", 33_229_420_200_000 - 2000],
    ] as const) {
      const reply = await postTrace(h, datedTrace(h, expiring, startedAt, label));
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    }

    // On day 4 with two days' retention, days 0 and 1 have ended before the cutoff; day 1 is shared.
    await setRetention(h, expiring, 2);
    const sweeper = new RetentionSweeper({ store: h.store, now: () => d0 + 4 * DAY_MS });
    const postgres = h.store.dialect === "postgres";
    // Day 0's 3 traces (dropped with their partition on PostgreSQL), day 1's expiring one and the far past one.
    expect(await sweeper.sweep()).toEqual({ traces: 5, spans: 10, partitions: postgres ? 1 : 0 });
    if (postgres) {
      const left = await partitions(h);
      expect(left).not.toContain(partitionName(d0));
      expect(left).toContain(partitionName(d0 + DAY_MS));
      // The day's attribute and tag partitions went with it.
      const { rows } = await sql<{ name: string }>`
        select relname as name from pg_class where relnamespace = current_schema()::regnamespace
        and relname in (${partitionName(d0, "logAttributes")}, ${partitionName(d0, "logTags")},
          ${partitionName(d0 + DAY_MS, "logAttributes")}, ${partitionName(d0 + DAY_MS, "logTags")})
        order by 1`.execute(h.store.db);
      expect(rows.map((row) => row.name)).toEqual([
        partitionName(d0 + DAY_MS, "logAttributes"),
        partitionName(d0 + DAY_MS, "logTags"),
      ]);
    }
    expect(await traceNames(h, expiring)).toEqual(["day3", "far-future"]);
    expect(await traceNames(h, keeping)).toEqual(["day1-keeping"]);
    // Each trace kept holds 3 attribute rows and 6 tag rows (trace and two spans); only day 3's score is left.
    for (const [projectId, traces, scores] of [
      [expiring, 2, 1],
      [keeping, 1, 0],
    ] as const) {
      expect({
        traces: await rowCount(h, "logTraces", projectId),
        spans: await rowCount(h, "logSpans", projectId),
        attributes: await rowCount(h, "logAttributes", projectId),
        tags: await rowCount(h, "logTags", projectId),
        scores: await rowCount(h, "scores", projectId),
      }).toEqual({ traces, spans: traces * 2, attributes: traces * 5, tags: traces * 6, scores });
    }
    expect(await sweeper.sweep()).toEqual({ traces: 0, spans: 0, partitions: 0 });

    // Once the keeping project has a retention that day 1 is past too, day 1 goes whole.
    await setRetention(h, keeping, 2);
    expect(await sweeper.sweep()).toEqual({ traces: 1, spans: 2, partitions: postgres ? 1 : 0 });
    expect(await traceNames(h, keeping)).toEqual([]);
    expect(await rowCount(h, "logAttributes", keeping)).toBe(0);
  });

  it("keeps a day holding a span of a trace that has not expired; its expired traces go by rows", async () => {
    const h = use();
    const projectId = await newProject(h);
    const d0 = dayZero(h, 60);
    await new RetentionSweeper({ store: h.store, now: () => d0 + DAY_MS }).sweep();
    await createTrace(h, datedTrace(h, projectId, d0 + 3_600_000, "expired"));
    // A trace of day 3 to which a span of day 0 is added (a span may start before its trace).
    const live = await createTrace(h, datedTrace(h, projectId, d0 + 3 * DAY_MS, "live"));
    const span = {
      traceId: live.traceId,
      name: "early",
      status: "success",
      startedAt: d0 + 7_200_000,
      endedAt: d0 + 7_200_010,
      content: { type: "Tool", input: "{}", output: "{}" },
    };
    const added = await h.request("POST", "/logs/span", { body: { projectId, span } });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    await setRetention(h, projectId, 2);
    const sweeper = new RetentionSweeper({ store: h.store, now: () => d0 + 4 * DAY_MS });
    // Day 1, empty and past every cutoff, goes (a span written there later lands in the DEFAULT partition).
    const postgres = h.store.dialect === "postgres";
    expect(await sweeper.sweep()).toEqual({ traces: 1, spans: 2, partitions: postgres ? 1 : 0 });
    expect(await traceNames(h, projectId)).toEqual(["live"]);
    expect(await rowCount(h, "logSpans", projectId)).toBe(3);
    if (postgres) {
      expect(await partitions(h)).toContain(partitionName(d0));
      expect(await partitions(h)).not.toContain(partitionName(d0 + DAY_MS));
    }
  });

  it("a span referenceId stays unique in its trace across days (409), wherever the first one is stored", async () => {
    const h = use();
    const projectId = await newProject(h);
    const d0 = dayZero(h, 80);
    await new RetentionSweeper({ store: h.store, now: () => d0 + DAY_MS }).sweep();
    const { traceId } = await createTrace(h, datedTrace(h, projectId, d0 + 1000, "referenced", "ref"));
    for (const startedAt of [d0 + 2000, d0 + 2 * DAY_MS, 33_229_420_200_000 - 20]) {
      const span = {
        traceId,
        name: "again",
        status: "success",
        startedAt,
        endedAt: startedAt + 10,
        content: { type: "Tool", input: "{}", output: "{}" },
        referenceId: "ref-span-1",
      };
      await expectError(await h.request("POST", "/logs/span", { body: { projectId, span } }), 409, "CONFLICT");
    }
  });

  it("a time-ranged span search reads only its days' partitions, by index; a trace's spans each day's trace index", async () => {
    const h = use();
    if (h.store.dialect !== "postgres") return;
    const projectId = await newProject(h);
    const d0 = dayZero(h, 100);
    await new RetentionSweeper({ store: h.store, now: () => d0 + DAY_MS }).sweep();
    // Four days of the project's spans, and a busier project's on the searched day.
    const busy = await newProject(h);
    let traceId = "";
    for (let day = 0; day < 4; day++) {
      for (let i = 0; i < 20; i++) {
        const created = await createTrace(h, datedTrace(h, projectId, d0 + day * DAY_MS + i * 60_000, `d${day}-${i}`));
        if (day === 1 && i === 0) traceId = created.traceId;
      }
    }
    for (let i = 0; i < 200; i++) await createTrace(h, datedTrace(h, busy, d0 + 2 * DAY_MS + i * 1000, `busy-${i}`));
    await sql`analyze`.execute(h.store.db);
    const recording = await recordingApp(h);
    const day2 = { projectId, startedAfter: d0 + 2 * DAY_MS + 1, startedBefore: d0 + 2 * DAY_MS + 300_000, limit: 5 };
    /** A day's partition suffix: `d20240815`. */
    const day = (n: number) => partitionName(d0 + n * DAY_MS).slice("logSpans_".length);
    const ranged = await explain(h, await recording.searchQuery("/logs/spans", day2));
    if (process.env.SHOW_PLANS) console.log(ranged);
    expect(ranged).toMatch(new RegExp(`Index (Only )?Scan( Backward)? using "?logSpansByTime_${day(2)}`));
    for (const other of [0, 1, 3]) expect(ranged).not.toContain(day(other));
    expect(ranged).not.toMatch(/Seq Scan|logSpans_default/);

    // Narrowed by an attribute: the attribute rows of the same day only, by index.
    const filters = [{ column: "attributes", key: "label", operator: "equals", value: "d2-3" }];
    const byAttribute = await explain(h, await recording.searchQuery("/logs/spans", { ...day2, filters }));
    if (process.env.SHOW_PLANS) console.log(byAttribute);
    expect(byAttribute).toMatch(new RegExp(`using "?logAttributes\\w*_${day(2)}`));
    for (const other of [0, 1, 3]) expect(byAttribute).not.toContain(day(other));
    expect(byAttribute).not.toMatch(/Seq Scan|_default/);

    const byTrace = await explain(h, await recording.searchQuery("/logs/spans", { projectId, logTraceId: traceId }));
    if (process.env.SHOW_PLANS) console.log(byTrace);
    expect(byTrace).toMatch(/Index (Only )?Scan( Backward)? using "?logSpansByTrace_d/);
    expect(byTrace).not.toMatch(/Seq Scan/);
  });

  it("an attribute search looks each owner up in its own day, and a later page reads no day after its cursor's", async () => {
    const h = use();
    if (h.store.dialect !== "postgres") return;
    const projectId = await newProject(h);
    const d0 = dayZero(h, 110);
    await new RetentionSweeper({ store: h.store, now: () => d0 + DAY_MS }).sweep();
    await h.store.spanPartitions?.prepare(d0, d0 + 4 * DAY_MS);
    for (let day = 0; day < 4; day++) {
      for (let i = 0; i < 10; i++) {
        const body = datedTrace(h, projectId, d0 + day * DAY_MS + i * 60_000, `d${day}-${i}`);
        // One span of the two has the attribute.
        ((body.spans as Body[])[0]?.attributes as Body).plan = "pro";
        await createTrace(h, body);
      }
    }
    await sql`analyze`.execute(h.store.db);
    const recording = await recordingApp(h);
    const day = (n: number) => partitionName(d0 + n * DAY_MS).slice("logSpans_".length);
    /**
     * The plan as run (EXPLAIN ANALYZE), where a partition's scan that no row needed shows `(never executed)`;
     * with a few rows the planner would rightly read them all and hash them: it is told not to, as at scale.
     */
    const analyze = (query: CompiledQuery) =>
      h.store.db.connection().execute(async (connection) => {
        await sql`set enable_seqscan = off`.execute(connection);
        await sql`set enable_hashjoin = off`.execute(connection);
        try {
          const { rows } = await connection.executeQuery<{ "QUERY PLAN": string }>({
            ...query,
            sql: `explain (analyze, costs off, timing off, summary off) ${query.sql}`,
          });
          return rows.map((row) => row["QUERY PLAN"]).join("\n");
        } finally {
          await sql`reset enable_seqscan`.execute(connection);
          await sql`reset enable_hashjoin`.execute(connection);
        }
      });
    const search = {
      projectId,
      startedAfter: d0,
      startedBefore: d0 + 4 * DAY_MS - 1,
      filters: [{ column: "attributes", key: "plan", operator: "equals", value: "pro" }],
      limit: 5,
    };
    // Each owner is looked up in its own day's spans only (run-time pruning): one primary-key scan per
    // lookup, whichever way the planner walks the owners; joined on id alone, every day's was scanned for each.
    const first = await analyze(await recording.searchQuery("/logs/spans", search));
    if (process.env.SHOW_PLANS) console.log(first);
    const lines = first.split("\n");
    const scans = lines.filter((line) => /Index Scan using "logSpans_pkey_d/.test(line));
    const loops = (line = "") => Number(/loops=(\d+)\)/.exec(line)?.[1] ?? 0);
    const lookups = loops(lines.slice(0, lines.indexOf(scans[0] ?? "")).findLast((line) => /-> +Append/.test(line)));
    expect(scans).toHaveLength(4);
    expect(lookups).toBeGreaterThan(0);
    expect(
      scans.reduce((sum, line) => sum + loops(line), 0),
      first,
    ).toBe(lookups);

    // A page whose cursor is in day 1 reads neither day 2 nor 3 nor the days made after them: its keyset
    // bounds the time as a plain comparison too, which partition pruning reads (a row comparison it cannot).
    let body: Record<string, unknown> = search;
    for (let page = 0; page < 5; page++) {
      const reply = await h.request("POST", "/logs/spans", { body });
      body = { ...search, cursor: reply.body.pagination.nextCursor };
    }
    const later = await analyze(await recording.searchQuery("/logs/spans", body));
    if (process.env.SHOW_PLANS) console.log(later);
    expect(later).toContain(day(1));
    for (const after of [2, 3]) expect(later).not.toContain(day(after));
    expect(later).not.toMatch(/_default|Merge Append|Sort Key/);
  });
});
