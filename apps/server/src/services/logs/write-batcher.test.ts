/**
 * Group commit of log writes: concurrent requests share transactions, a request that fails (409, 404) does
 * not fail or undo the others of its batch, and aggregates stay exact under concurrent spans and updates.
 * The batcher's own guarantees (savepoint per job, fallback to one transaction per job, batch size limit)
 * are tested on it directly, on each adapter.
 */
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../../store/store.ts";
import { expectError } from "../../testing/expect-error.ts";
import { adapters, describeEachStore } from "../../testing/harness.ts";
import {
  countRows,
  createTrace,
  modelSpan,
  newProject,
  patchTrace,
  postSpan,
  postTrace,
  stepSpan,
  storedSpans,
  storedTrace,
  tagIndex,
  traceBody,
  uniqueRef,
} from "../../testing/log-write-fixtures.ts";
import { hexId, jsonRequest, sendOtlp } from "../../testing/otel-fixtures.ts";
import { WriteBatcher, type WriteWork } from "./write-batcher.ts";

describeEachStore(
  "log writes under concurrency (group commit)",
  (use) => {
    it("50 concurrent createLogTrace: the 5 duplicates get 409, the 45 others are stored whole, in few transactions", async () => {
      const h = use();
      const projectId = await newProject(h);
      const refs = Array.from({ length: 45 }, () => uniqueRef("burst"));
      // The first five referenceIds are sent twice.
      const bodies = [...refs, ...refs.slice(0, 5)].map((referenceId, i) =>
        traceBody(
          h,
          { referenceId, name: `burst-${i}` },
          [modelSpan(), stepSpan(), stepSpan({ name: "second" })],
          projectId,
        ),
      );
      const stats = h.app.logWrites.stats;
      const before = { batches: stats.batches, transactions: stats.transactions, jobs: stats.jobs };

      const replies = await Promise.all(bodies.map((body) => postTrace(h, body)));

      const statuses = replies.map((reply) => reply.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(45);
      expect(statuses.filter((status) => status === 409)).toHaveLength(5);
      for (const reply of replies.filter((r) => r.status === 409)) await expectError(reply, 409, "CONFLICT");
      // Exactly one trace per referenceId, each with all three spans.
      for (const referenceId of refs) {
        const winners = replies.filter(
          (reply, i) => reply.status === 200 && bodies[i]?.trace.referenceId === referenceId,
        );
        expect(winners, referenceId).toHaveLength(1);
        const trace = await storedTrace(h, winners[0]?.body.traceId);
        expect(trace?.spanIds).toHaveLength(3);
        expect(trace?.totalCost).toBeCloseTo(0.25, 12);
      }
      expect(await countRows(h, "logTraces", projectId)).toBe(45);
      expect(await countRows(h, "logSpans", projectId)).toBe(135);

      // Grouped: far fewer transactions than requests, and batches of several jobs.
      const batches = stats.batches - before.batches;
      const transactions = stats.transactions - before.transactions;
      expect(stats.jobs - before.jobs).toBe(50);
      expect(transactions).toBe(batches);
      expect(batches).toBeLessThanOrEqual(25);
      expect(stats.largestBatch).toBeGreaterThanOrEqual(5);
    });

    it("OTLP exports of new and stored traces at once: each trace created once, the others' spans attach, nothing retried", async () => {
      const h = use();
      const projectId = await newProject(h);
      const span = (traceId: string, name: string) => ({ traceId, spanId: hexId(8), name });
      const stored = hexId(16);
      expect(
        (await sendOtlp(h, { projectId, body: JSON.stringify(jsonRequest([span(stored, "first")])) })).status,
      ).toBe(200);
      const fresh = [hexId(16), hexId(16), hexId(16)];
      // Each new trace arrives in two requests at once; the stored one in three more.
      const requests = [
        ...fresh.flatMap((traceId) => [[span(traceId, "a")], [span(traceId, "b"), span(traceId, "c")]]),
        ...[1, 2, 3].map((n) => [span(stored, `more-${n}`)]),
      ];
      const stats = h.app.logWrites.stats;
      const before = { jobs: stats.jobs, fallbacks: stats.fallbacks };

      const replies = await Promise.all(
        requests.map((spans) => sendOtlp(h, { projectId, body: JSON.stringify(jsonRequest(spans)) })),
      );

      expect(replies.map((reply) => reply.status)).toEqual(requests.map(() => 200));
      // One job per request: no export found its trace created by another and ran again.
      expect(stats.jobs - before.jobs).toBe(requests.length);
      expect(stats.fallbacks - before.fallbacks).toBe(0);
      const traces = await h.store.db
        .selectFrom("logTraces")
        .select(["referenceId", "spanIds"])
        .where("projectId", "=", projectId)
        .execute();
      expect(Object.fromEntries(traces.map((trace) => [trace.referenceId, JSON.parse(trace.spanIds).length]))).toEqual({
        [stored]: 4,
        [fresh[0] as string]: 3,
        [fresh[1] as string]: 3,
        [fresh[2] as string]: 3,
      });
    });

    it("concurrent spans and updates of one trace: every acknowledged change is in the aggregates, none lost", async () => {
      const h = use();
      const referenceId = uniqueRef("shared");
      const { traceId } = await createTrace(h, traceBody(h, { referenceId }, [modelSpan({ referenceId: "root" })]));
      // 40 spans, of which 4 reuse a referenceId of another (409), and 10 tag updates, all at once.
      const spanBodies = Array.from({ length: 40 }, (_, i) => ({
        projectId: h.projectId,
        span: {
          ...modelSpan({ name: `s${i}`, referenceId: `r${i % 36}` }, { cost: i + 1 }),
          ...(i % 2 === 0 ? { traceId } : { traceReferenceId: referenceId }),
        },
      }));
      const tagBodies = Array.from({ length: 10 }, (_, i) => ({
        projectId: h.projectId,
        referenceId,
        logTrace: { tags: [{ operation: "create", tag: `tag-${i}` }] },
      }));
      const [spanReplies, tagReplies] = await Promise.all([
        Promise.all(spanBodies.map((body) => postSpan(h, body))),
        Promise.all(tagBodies.map((body) => patchTrace(h, body))),
      ]);
      expect(tagReplies.map((reply) => reply.status)).toEqual(Array(10).fill(200));
      const accepted = spanReplies.flatMap((reply, i) => (reply.status === 200 ? [{ id: reply.body.spanId, i }] : []));
      expect(accepted).toHaveLength(36);
      expect(spanReplies.filter((reply) => reply.status === 409)).toHaveLength(4);

      const trace = await storedTrace(h, traceId);
      expect(new Set(trace?.spanIds)).toEqual(new Set([trace?.spanIds[0], ...accepted.map((a) => a.id)]));
      expect(trace?.spanIds).toHaveLength(37);
      expect((await storedSpans(h, traceId)).map((span) => span.id).sort()).toEqual([...(trace?.spanIds ?? [])].sort());
      const cost = 0.25 + accepted.reduce((sum, { i }) => sum + i + 1, 0);
      expect(trace?.totalCost).toBeCloseTo(cost, 9);
      expect(trace).toMatchObject({ totalInputTokens: 12 * 37, totalOutputTokens: 5 * 37 });
      const tags = Array.from({ length: 10 }, (_, i) => `tag-${i}`).sort();
      expect([...(trace?.tags ?? [])].sort()).toEqual(tags);
      expect(await tagIndex(h, "trace", traceId)).toEqual(tags);
    });
  },
  { logWriteBatch: { windowMs: 10 } },
);

describe.each(adapters.map((adapter) => [adapter.name, adapter] as const))("WriteBatcher [%s]", (_, adapter) => {
  let store: Store;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    const opened = await adapter.open();
    store = opened.store;
    dispose = opened.dispose;
    await store.migrate();
  });
  afterAll(async () => {
    await dispose?.();
  });

  /** Submits a job whose size does not matter here. */
  const submit = <T>(batcher: WriteBatcher, work: WriteWork<T>) => batcher.submit(work, 0);

  /** A job that stores one setting. */
  const put = (key: string) => async (db: Store["db"]) => {
    await db.insertInto("settings").values({ key, value: "v" }).execute();
    return key;
  };
  const stored = async (prefix: string) =>
    (
      await store.db.selectFrom("settings").select("key").where("key", "like", `${prefix}%`).orderBy("key").execute()
    ).map((row) => row.key);

  it("runs jobs submitted together in one transaction; a failing job is undone alone, the others commit", async () => {
    const batcher = new WriteBatcher(store, { windowMs: 20 });
    const settled = await Promise.allSettled([
      submit(batcher, put("a-1")),
      submit(batcher, async (db) => {
        await put("a-2")(db);
        throw new Error("fails after writing");
      }),
      submit(batcher, put("a-3")),
      submit(batcher, put("a-1")), // a unique violation: on PostgreSQL it would abort a transaction without savepoints
      submit(batcher, put("a-4")),
    ]);
    expect(settled.map((outcome) => outcome.status)).toEqual([
      "fulfilled",
      "rejected",
      "fulfilled",
      "rejected",
      "fulfilled",
    ]);
    expect(store.isUniqueViolation((settled[3] as PromiseRejectedResult).reason)).toBe(true);
    expect(await stored("a-")).toEqual(["a-1", "a-3", "a-4"]);
    expect(batcher.stats).toMatchObject({ batches: 1, transactions: 1, jobs: 5, largestBatch: 5, fallbacks: 0 });
  });

  const insert = (key: string) => [{ table: "settings" as const, rows: [{ key, value: "v" }] }];

  it("stores the insert-only jobs of a batch with merged statements, before the batch's other jobs", async () => {
    const batcher = new WriteBatcher(store, { windowMs: 20 });
    const settled = await Promise.allSettled([
      batcher.submitInserts(insert("g-1")),
      // Runs after the merged inserts, so it finds a row submitted after it.
      submit(batcher, async (db) => {
        const found = await db.selectFrom("settings").select("key").where("key", "=", "g-3").executeTakeFirst();
        await put(`g-2-saw-${found?.key}`)(db);
      }),
      batcher.submitInserts([...insert("g-3"), { table: "settings", rows: [{ key: "g-4", value: "v" }] }]),
    ]);
    expect(settled.map((outcome) => outcome.status)).toEqual(["fulfilled", "fulfilled", "fulfilled"]);
    expect(await stored("g-")).toEqual(["g-1", "g-2-saw-g-3", "g-3", "g-4"]);
    expect(batcher.stats).toMatchObject({ batches: 1, transactions: 1, jobs: 3, mergedJobs: 2, fallbacks: 0 });
  });

  it("when the merged inserts fail, runs each insert-only job alone: only the duplicate is refused", async () => {
    await store.db.insertInto("settings").values({ key: "h-2", value: "v" }).execute();
    const batcher = new WriteBatcher(store, { windowMs: 20 });
    const settled = await Promise.allSettled(
      ["h-1", "h-2", "h-3", "h-3"].map((key) => batcher.submitInserts(insert(key))),
    );
    expect(settled.map((outcome) => outcome.status)).toEqual(["fulfilled", "rejected", "fulfilled", "rejected"]);
    for (const index of [1, 3]) {
      expect(store.isUniqueViolation((settled[index] as PromiseRejectedResult).reason)).toBe(true);
    }
    expect(await stored("h-")).toEqual(["h-1", "h-2", "h-3"]);
    expect(batcher.stats).toMatchObject({ batches: 1, transactions: 1, jobs: 4, mergedJobs: 0, fallbacks: 0 });
  });

  it("closes a batch at maxJobs; jobs arriving during a commit form the next batch", async () => {
    const batcher = new WriteBatcher(store, { windowMs: 5, maxJobs: 4 });
    const keys = Array.from({ length: 10 }, (_, i) => `b-${String(i).padStart(2, "0")}`);
    expect(await Promise.all(keys.map((key) => submit(batcher, put(key))))).toEqual(keys);
    expect(batcher.stats).toMatchObject({ batches: 3, transactions: 3, jobs: 10, largestBatch: 4 });
    expect([...batcher.stats.sizes.entries()].sort()).toEqual([
      [2, 1],
      [4, 2],
    ]);
    expect(await stored("b-")).toEqual(keys);
  });

  it("waits the window for company only while writes are concurrent; a lone writer is not delayed", async () => {
    const batcher = new WriteBatcher(store, { windowMs: 300 });
    const started = performance.now();
    await submit(batcher, put("e-1"));
    expect(performance.now() - started).toBeLessThan(250);
    // Two jobs in one tick share a batch; from then on writers are concurrent and a batch waits the window,
    // so a job submitted 20 ms after another joins it.
    await Promise.all([submit(batcher, put("e-2")), submit(batcher, put("e-3"))]);
    const first = submit(batcher, put("e-4"));
    await new Promise((resolve) => setTimeout(resolve, 20));
    await Promise.all([first, submit(batcher, put("e-5"))]);
    expect(batcher.stats).toMatchObject({ batches: 3, jobs: 5 });
    expect(batcher.stats.sizes.get(2)).toBe(2);
    expect(await stored("e-")).toEqual(["e-1", "e-2", "e-3", "e-4", "e-5"]);
  });

  it("re-runs each job in a transaction of its own when the batch's transaction fails as a whole", async () => {
    const batcher = new WriteBatcher(store, { windowMs: 20 });
    const settled = await Promise.allSettled([
      submit(batcher, put("c-1")),
      // Releases the savepoint the batcher holds for it: the batch cannot go on, and alone the job fails.
      submit(batcher, async (db) => {
        await put("c-2")(db);
        await sql`release savepoint nested`.execute(db);
        await sql`release savepoint nested`.execute(db);
      }),
      submit(batcher, put("c-3")),
    ]);
    expect(settled.map((outcome) => outcome.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(await stored("c-")).toEqual(["c-1", "c-3"]);
    expect(batcher.stats).toMatchObject({ batches: 1, fallbacks: 1, transactions: 4, jobs: 3 });
  });

  it("tries a job that lost a deadlock (PostgreSQL 40P01) once more, alone, after its batch committed", async () => {
    const batcher = new WriteBatcher(store, { windowMs: 20 });
    let attempts = 0;
    const settled = await Promise.allSettled([
      submit(batcher, put("f-1")),
      submit(batcher, async (db) => {
        attempts += 1;
        await put(`f-2-attempt-${attempts}`)(db);
        if (attempts === 1) throw Object.assign(new Error("deadlock detected"), { code: "40P01" });
      }),
    ]);
    expect(settled.map((outcome) => outcome.status)).toEqual(["fulfilled", "fulfilled"]);
    expect(await stored("f-")).toEqual(["f-1", "f-2-attempt-2"]);
    expect(batcher.stats).toMatchObject({ batches: 1, transactions: 2, fallbacks: 0, jobs: 2 });
  });

  /** An origin's rows as a write submits them (origins are not tied to a stored project). */
  const originRows = (originId: string) => [
    {
      table: "logOriginAttributes" as const,
      rows: [
        {
          projectId: "p-origins",
          originId,
          key: "otel.resource.service.name",
          textValue: "svc",
          numberValue: null,
          booleanValue: null,
        },
      ],
    },
  ];
  const storedOrigins = async () =>
    (
      await store.db
        .selectFrom("logOriginAttributes")
        .select("originId")
        .where("projectId", "=", "p-origins")
        .orderBy("originId")
        .execute()
    ).map((row) => row.originId);
  const forget = (originId: string) =>
    store.db
      .deleteFrom("logOriginAttributes")
      .where("projectId", "=", "p-origins")
      .where("originId", "=", originId)
      .execute();

  it("stores an origin's rows once: after a commit, later jobs of the same origin leave them out", async () => {
    const batcher = new WriteBatcher(store, { windowMs: 1 });
    await batcher.submitInserts(originRows("o-1"));
    expect(await storedOrigins()).toContain("o-1");
    // Removed behind the batcher's back: a later job of the origin does not send its rows again.
    await forget("o-1");
    await batcher.submitInserts([...originRows("o-1"), ...insert("o-settings-1")]);
    expect(await storedOrigins()).not.toContain("o-1");
    expect(await stored("o-settings-")).toEqual(["o-settings-1"]);
    // Another batcher (another process) knows nothing of it, and stores its rows.
    await new WriteBatcher(store, { windowMs: 1 }).submitInserts(originRows("o-1"));
    expect(await storedOrigins()).toContain("o-1");
  });

  it("does not take an origin for stored when its job was rolled back, or attached instead of inserting", async () => {
    const batcher = new WriteBatcher(store, { windowMs: 1 });
    await store.db.insertInto("settings").values({ key: "o-taken", value: "v" }).execute();
    // Its rows fail on the duplicate setting: nothing of the job is stored, its origin included.
    await expect(batcher.submitInserts([...originRows("o-2"), ...insert("o-taken")])).rejects.toSatisfy((error) =>
      store.isUniqueViolation(error),
    );
    expect(await storedOrigins()).not.toContain("o-2");
    await batcher.submitInserts(originRows("o-2"));
    expect(await storedOrigins()).toContain("o-2");

    // Of two jobs of a batch creating the same trace, the second runs its other work, which here stores
    // nothing: its origin stays unknown.
    const trace = [{ projectId: "p-origins", referenceId: "o-trace" }];
    const batched = new WriteBatcher(store, { windowMs: 20 });
    await Promise.all([
      batched.submitNewTraces(insert("o-first"), trace, async () => undefined),
      batched.submitNewTraces(originRows("o-3"), trace, async () => undefined),
    ]);
    expect(await stored("o-first")).toEqual(["o-first"]);
    expect(await storedOrigins()).not.toContain("o-3");
    await batched.submitInserts(originRows("o-3"));
    expect(await storedOrigins()).toContain("o-3");
  });

  it("acknowledges a job only once its batch is committed", async () => {
    const batcher = new WriteBatcher(store, { windowMs: 1 });
    const key = "d-1";
    await submit(batcher, put(key));
    // A new connection (PostgreSQL) or the same file after the transaction (SQLite) sees it at once.
    const visible = await store.db.selectFrom("settings").select("key").where("key", "=", key).executeTakeFirst();
    expect(visible?.key).toBe(key);
  });
});
