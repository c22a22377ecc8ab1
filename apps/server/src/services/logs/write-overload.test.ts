/**
 * Log writes arriving faster than storage commits them: the writes in progress are bounded in number (the next
 * ones wait their turn for a while, a bounded number of them) and the jobs waiting for storage in size; a write
 * over a bound is refused with 503 OVERLOADED and Retry-After, nothing of it stored, while every accepted write
 * is stored whole. Storage is made slower than the writes by holding back the batches' transactions until the
 * test lets them go.
 */
import { expect, it } from "vitest";
import type { Store } from "../../store/store.ts";
import type { RunInTransaction } from "../../store/transactions.ts";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore, type Harness } from "../../testing/harness.ts";
import {
  countRows,
  createTrace,
  modelSpan,
  newProject,
  patchTrace,
  postSpan,
  postTrace,
  stepSpan,
  storedTrace,
  traceBody,
  uniqueRef,
} from "../../testing/log-write-fixtures.ts";

/**
 * Makes every transaction begun on the store's own handle (a batch of log writes; the tests start no other
 * writes meanwhile) wait until `release()`, which also puts the store back as it was.
 */
function holdCommits(store: Store): { release(): void } {
  const original = store.transaction;
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const held: RunInTransaction = async (db, work, options) => {
    if (db === store.db) await released;
    return original(db, work, options);
  };
  (store as { transaction: RunInTransaction }).transaction = held;
  return {
    release() {
      (store as { transaction: RunInTransaction }).transaction = original;
      release();
    },
  };
}

/** Resolves once the app's batcher counts `count` (in all) of `stat`, or fails after a bounded wait. */
async function counted(h: Harness, stat: "refused" | "waited", count: number): Promise<void> {
  for (const started = Date.now(); h.app.logWrites.stats[stat] < count; ) {
    if (Date.now() - started > 10_000) throw new Error(`${h.app.logWrites.stats[stat]} of ${count} ${stat}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const MAX_PENDING = 4;

describeEachStore(
  "log writes under overload: bounded by number",
  (use) => {
    it("refuses writes beyond the bound with 503 OVERLOADED and Retry-After, storing none of them; stores every accepted one", async () => {
      const h = use();
      const projectId = await newProject(h);
      const existing = await createTrace(
        h,
        traceBody(h, { referenceId: uniqueRef("existing") }, [stepSpan()], projectId),
      );
      const refusedBefore = h.app.logWrites.stats.refused;
      const hold = holdCommits(h.store);

      const bodies = Array.from({ length: 20 }, (_, i) =>
        traceBody(h, { referenceId: uniqueRef("flood"), name: `flood-${i}` }, [modelSpan(), stepSpan()], projectId),
      );
      const traces = bodies.map((body) => postTrace(h, body));
      let span: Awaited<ReturnType<typeof postSpan>>;
      let update: Awaited<ReturnType<typeof patchTrace>>;
      let unparsed: Awaited<ReturnType<typeof postSpan>>;
      let unauthenticated: Awaited<ReturnType<typeof postSpan>>;
      try {
        // Four in progress, sixteen waiting their turn, which does not come in time.
        await counted(h, "refused", refusedBefore + bodies.length - MAX_PENDING);
        // The queue is full: a span and a trace update are refused alike, before they touch the trace.
        span = await postSpan(h, { projectId, span: { ...modelSpan(), traceId: existing.traceId } });
        update = await patchTrace(h, {
          projectId,
          traceId: existing.traceId,
          logTrace: { tags: [{ operation: "create", tag: "never" }] },
        });
        // Held back before its body is parsed and its key checked (that must cost little): even a malformed
        // write gets 503, not 400, and one without a key 503, not 401.
        unparsed = await h.request("POST", "/logs/trace", {
          rawBody: '{"projectId": ',
          headers: { "Content-Type": "application/json" },
        });
        unauthenticated = await h.request("POST", "/logs/trace", { body: bodies[0], key: null });
      } finally {
        hold.release();
      }
      const replies = await Promise.all(traces);

      const accepted = replies.flatMap((reply, i) => (reply.status === 200 ? [{ reply, body: bodies[i] }] : []));
      const refused = [...replies.filter((reply) => reply.status !== 200), span, update, unparsed, unauthenticated];
      expect(accepted).toHaveLength(MAX_PENDING);
      expect(refused).toHaveLength(bodies.length - MAX_PENDING + 4);
      for (const reply of refused) {
        await expectError(reply, 503, "OVERLOADED");
        expect(reply.headers.get("Retry-After")).toBe("1");
        expect(reply.body.error.message).toContain("Nothing was stored");
      }
      // Every accepted trace whole; nothing of the refused writes.
      for (const { reply } of accepted) expect((await storedTrace(h, reply.body.traceId))?.spanIds).toHaveLength(2);
      expect(await countRows(h, "logTraces", projectId)).toBe(1 + MAX_PENDING);
      expect(await countRows(h, "logSpans", projectId)).toBe(1 + 2 * MAX_PENDING);
      expect((await storedTrace(h, existing.traceId))?.tags).toEqual([]);
      expect(h.app.logWrites.stats.largestPending.jobs).toBe(MAX_PENDING);

      // Drained: writes are accepted again.
      const after = await postTrace(h, traceBody(h, { referenceId: uniqueRef("after") }, [modelSpan()], projectId));
      expect(after.status).toBe(200);
    });
  },
  // The wait is short: this test is about refusals.
  { logWriteBatch: { maxPendingWrites: MAX_PENDING, maxWaitMs: 50 } },
);

describeEachStore(
  "log writes under overload: waiting for their turn",
  (use) => {
    it("a write that finds the bound reached waits its turn and is stored; beyond four waiting per write in progress, one is refused at once", async () => {
      const h = use();
      const projectId = await newProject(h);
      const { refused, waited } = h.app.logWrites.stats;
      const hold = holdCommits(h.store);
      const bodies = Array.from({ length: 6 }, (_, i) =>
        traceBody(h, { referenceId: uniqueRef("turn"), name: `turn-${i}` }, [stepSpan()], projectId),
      );
      // One at a time: the first is in progress, four wait, the sixth finds no place to wait.
      const traces: ReturnType<typeof postTrace>[] = [];
      try {
        for (const [i, body] of bodies.entries()) {
          traces.push(postTrace(h, body));
          if (i >= 1 && i <= 4) await counted(h, "waited", waited + i);
        }
        await counted(h, "refused", refused + 1);
      } finally {
        hold.release();
      }
      const replies = await Promise.all(traces);
      expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200, 200, 200, 503]);
      await expectError(replies[5] as Awaited<ReturnType<typeof postTrace>>, 503, "OVERLOADED");
      expect(await countRows(h, "logTraces", projectId)).toBe(5);
      expect(h.app.logWrites.stats.largestPending.jobs).toBe(1);
    });
  },
  { logWriteBatch: { maxPendingWrites: 1, maxWaitMs: 10_000 } },
);

/** A Model span whose input is about `bytes` long. */
const spanOfBytes = (bytes: number) =>
  modelSpan(
    {},
    {
      input: JSON.stringify({
        messages: [{ role: "user", content: [{ modality: "text", value: "x".repeat(bytes) }] }],
      }),
    },
  );

const MAX_PENDING_BYTES = 50_000;

describeEachStore(
  "log writes under overload: bounded by size",
  (use) => {
    it("refuses a write that would take the writes waiting for storage over their size bound; a lone larger write is taken", async () => {
      const h = use();
      const projectId = await newProject(h);
      const refusedBefore = h.app.logWrites.stats.refused;
      const hold = holdCommits(h.store);

      // About 20 KB each: two fit in the bound, a third does not.
      const bodies = Array.from({ length: 6 }, () =>
        traceBody(h, { referenceId: uniqueRef("big") }, [spanOfBytes(20_000)], projectId),
      );
      const traces = bodies.map((body) => postTrace(h, body));
      try {
        await counted(h, "refused", refusedBefore + 4);
      } finally {
        hold.release();
      }
      const replies = await Promise.all(traces);
      expect(replies.map((reply) => reply.status).sort()).toEqual([200, 200, 503, 503, 503, 503]);
      expect(await countRows(h, "logTraces", projectId)).toBe(2);
      const largest = h.app.logWrites.stats.largestPending.bytes;
      expect(largest).toBeGreaterThan(40_000);
      expect(largest).toBeLessThanOrEqual(MAX_PENDING_BYTES);

      // Alone, a write over the bound is stored: an empty queue takes any write.
      const alone = await postTrace(
        h,
        traceBody(h, { referenceId: uniqueRef("alone") }, [spanOfBytes(200_000)], projectId),
      );
      expect(alone.status).toBe(200);
      expect(await countRows(h, "logTraces", projectId)).toBe(3);
    });
  },
  { logWriteBatch: { maxPendingBytes: MAX_PENDING_BYTES } },
);
