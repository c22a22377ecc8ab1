/**
 * Retention set through PATCH /projects/{projectId} and enforced by the worker's sweeper: exactly the traces
 * that started more than `retentionDays` ago go, with their spans and side rows, while writes go on.
 */
import { expect, it } from "vitest";
import { DAY_MS } from "../../services/retention/delete-expired-logs.ts";
import { describeEachStore, type Harness } from "../../testing/harness.ts";
import { createTrace, datedTrace, newProject, postSpan, postTrace, T0 } from "../../testing/log-write-fixtures.ts";
import { RetentionSweeper } from "../../worker/retention-sweeper.ts";

/** Every log row of the project, by table. */
async function rowCounts(h: Harness, projectId: string) {
  const count = async (table: "logTraces" | "logSpans" | "logAttributes" | "logTags") =>
    Number(
      (
        await h.store.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("projectId", "=", projectId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    traces: await count("logTraces"),
    spans: await count("logSpans"),
    attributes: await count("logAttributes"),
    tags: await count("logTags"),
  };
}

async function searchedNames(h: Harness, projectId: string): Promise<string[]> {
  const names: string[] = [];
  let cursor: string | undefined;
  do {
    const reply = await h.request("POST", "/logs/traces", { body: { projectId, limit: 200, cursor } });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    names.push(...reply.body.traces.map((trace: { name: string }) => trace.name));
    cursor = reply.body.pagination.nextCursor ?? undefined;
  } while (cursor);
  return names.sort();
}

describeEachStore("retention", (use) => {
  it("deletes exactly the expired traces with their spans and side rows, in batches, while writes go on", async () => {
    const h = use();
    const projectId = await newProject(h);
    const untouched = await newProject(h);
    const now = h.now();
    const expiredAt = (index: number) => now - 3 * DAY_MS - index * 1000;
    // 250 expired traces (more than one batch), 2 just inside the 2-day window, and the same in a project
    // without retention.
    await Promise.all(
      Array.from({ length: 250 }, (_, index) =>
        createTrace(h, datedTrace(h, projectId, expiredAt(index), `expired-${index}`)),
      ),
    );
    await createTrace(h, datedTrace(h, projectId, now - 2 * DAY_MS + 60_000, "inside-window"));
    await createTrace(h, datedTrace(h, projectId, now - 1000, "recent"));
    await createTrace(h, datedTrace(h, untouched, expiredAt(0), "no-retention"));
    const before = await rowCounts(h, projectId);
    expect(before.traces).toBe(252);

    const set = await h.request("PATCH", `/projects/${projectId}`, { body: { retentionDays: 2 } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const sweeper = new RetentionSweeper({ store: h.store, now: () => now });
    // Writes (new and expired-dated alike) go on while the sweep runs; each is answered 200.
    const writes = Array.from({ length: 20 }, (_, index) =>
      postTrace(h, datedTrace(h, projectId, now - 500 - index, `during-${index}`)),
    );
    const [deleted, ...replies] = await Promise.all([sweeper.sweep(), ...writes]);
    for (const reply of replies) expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(deleted).toEqual({ traces: 250, spans: 500, partitions: 0 });

    const kept = ["inside-window", "recent", ...Array.from({ length: 20 }, (_, index) => `during-${index}`)].sort();
    expect(await searchedNames(h, projectId)).toEqual(kept);
    // Each kept trace holds 1 + 2 attribute rows (label; label and step on each span) … and its tags.
    expect(await rowCounts(h, projectId)).toEqual({
      traces: kept.length,
      spans: kept.length * 2,
      attributes: kept.length * (1 + 2 * 2),
      tags: kept.length * (2 + 2 * 2),
    });
    expect(await searchedNames(h, untouched)).toEqual(["no-retention"]);
    // A second pass finds nothing more.
    expect(await sweeper.sweep()).toEqual({ traces: 0, spans: 0, partitions: 0 });
  });

  it("an expired trace's spans go wherever they started, days before or after the trace", async () => {
    const h = use();
    const projectId = await newProject(h);
    const now = h.now();
    const { traceId } = await createTrace(h, datedTrace(h, projectId, now - 5 * DAY_MS, "spread"));
    // POST /logs/span takes any start: these lie in other days (other partitions on PostgreSQL) than the
    // trace's, which alone decides when they expire.
    for (const startedAt of [now - 9 * DAY_MS, now - 3 * DAY_MS, now - 1000]) {
      const span = {
        name: "far",
        status: "success",
        startedAt,
        endedAt: startedAt + 10,
        traceId,
        attributes: { far: 1 },
      };
      const reply = await postSpan(h, {
        projectId,
        span: { ...span, content: { type: "Tool", input: "{}", output: "{}" } },
      });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    }
    await createTrace(h, datedTrace(h, projectId, now - 1000, "recent"));
    expect((await h.request("PATCH", `/projects/${projectId}`, { body: { retentionDays: 4 } })).status).toBe(200);
    const result = await new RetentionSweeper({ store: h.store, now: () => now }).sweep();
    expect(result).toMatchObject({ traces: 1 });
    expect(result.spans).toBe(5);
    expect(await rowCounts(h, projectId)).toEqual({ traces: 1, spans: 2, attributes: 1 + 2 * 2, tags: 2 + 2 * 2 });
  });

  it("two sweepers side by side (two replicas) delete each expired trace once, between them", async () => {
    const h = use();
    const projectId = await newProject(h);
    const now = h.now();
    await Promise.all(
      Array.from({ length: 120 }, (_, index) =>
        createTrace(h, datedTrace(h, projectId, now - 10 * DAY_MS - index, `old-${index}`)),
      ),
    );
    await createTrace(h, datedTrace(h, projectId, now, "new"));
    await h.request("PATCH", `/projects/${projectId}`, { body: { retentionDays: 1 } });
    // On PostgreSQL each sweeper's batches run on their own pooled connections, at the same time (SKIP LOCKED
    // keeps them apart); SQLite is served by one process, whose transactions take turns.
    const sweepers = [1, 2].map(() => new RetentionSweeper({ store: h.store, now: () => now }));
    const results = await Promise.all(sweepers.map((sweeper) => sweeper.sweep()));
    expect(results.reduce((sum, result) => sum + result.traces, 0)).toBe(120);
    expect(results.reduce((sum, result) => sum + result.spans, 0)).toBe(240);
    expect(await searchedNames(h, projectId)).toEqual(["new"]);
    expect(await rowCounts(h, projectId)).toEqual({ traces: 1, spans: 2, attributes: 5, tags: 6 });
  });

  it("keeps everything when retention is null, and deletes once it is set", async () => {
    const h = use();
    const projectId = await newProject(h);
    const now = h.now();
    await createTrace(h, datedTrace(h, projectId, T0 - 400 * DAY_MS, "old"));
    const sweeper = new RetentionSweeper({ store: h.store, now: () => now });
    expect(await sweeper.sweep()).toEqual({ traces: 0, spans: 0, partitions: 0 });
    expect(await searchedNames(h, projectId)).toEqual(["old"]);
    await h.request("PATCH", `/projects/${projectId}`, { body: { retentionDays: 365 } });
    expect(await sweeper.sweep()).toEqual({ traces: 1, spans: 2, partitions: 0 });
    expect(await rowCounts(h, projectId)).toEqual({ traces: 0, spans: 0, attributes: 0, tags: 0 });
  });
});
