import { expect, it } from "vitest";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore, type Harness } from "../../testing/harness.ts";
import {
  createTrace,
  modelSpan,
  newProject,
  patchTrace,
  postSpan,
  T0,
  traceBody,
} from "../../testing/log-write-fixtures.ts";

interface Totals {
  id: string;
  firstSeenAt: number;
  lastSeenAt: number;
  traceCount: number;
  errorCount: number;
  totalCost: number;
  totalInputTokens: number;
  totalOutputTokens: number;
}

const list = (h: Harness, path: string, key?: string) => h.request("GET", path, { key });

/** Every item of a list, page after page of `limit`; fails on anything but 200. */
async function listAll(h: Harness, path: string, field: string, limit: number): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = null;
  do {
    const separator = path.includes("?") ? "&" : "?";
    const reply = await list(h, `${path}${separator}limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.pagination.returned).toBe(reply.body[field].length);
    items.push(...reply.body[field]);
    cursor = reply.body.pagination.nextCursor;
  } while (cursor !== null);
  return items;
}

interface WrittenTrace {
  id: string;
  session?: string;
  user?: string;
  startedAt: number;
  failed: boolean;
  cost: number;
  input: number;
  output: number;
}

/** What the lists must say, computed here from the traces the test wrote, grouped by `group`. */
function expectedTotals(traces: (WrittenTrace & { group: string | undefined })[]): Totals[] {
  const groups = new Map<string, Totals>();
  for (const trace of traces) {
    if (trace.group === undefined) continue;
    const totals = groups.get(trace.group) ?? {
      id: trace.group,
      firstSeenAt: trace.startedAt,
      lastSeenAt: trace.startedAt,
      traceCount: 0,
      errorCount: 0,
      totalCost: 0,
      totalInputTokens: 0,
      totalOutputTokens: 0,
    };
    totals.firstSeenAt = Math.min(totals.firstSeenAt, trace.startedAt);
    totals.lastSeenAt = Math.max(totals.lastSeenAt, trace.startedAt);
    totals.traceCount += 1;
    totals.errorCount += trace.failed ? 1 : 0;
    totals.totalCost += trace.cost;
    totals.totalInputTokens += trace.input;
    totals.totalOutputTokens += trace.output;
    groups.set(trace.group, totals);
  }
  return [...groups.values()];
}

const byLastSeen = (direction: 1 | -1) => (a: Totals, b: Totals) =>
  direction * (a.lastSeenAt - b.lastSeenAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
const byCost = (direction: 1 | -1) => (a: Totals, b: Totals) =>
  direction * (a.totalCost - b.totalCost || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

describeEachStore("sessions and users", (use) => {
  it("lists sessions and users with the totals of their traces, in every sort, page by page, and a session's traces in order", async () => {
    const h = use();
    const projectId = await newProject(h);
    // 40 traces over 7 sessions and 5 users (some traces with neither), 0 to 2 Model spans each, some failed.
    const written: WrittenTrace[] = [];
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    for (let i = 0; i < 40; i++) {
      const session = random(8) === 7 ? undefined : `sess-${random(7)}`;
      const user = random(6) === 5 ? undefined : `user-${random(5)}`;
      const startedAt = T0 + random(100_000) * 10;
      const failed = random(4) === 0;
      const spans = Array.from({ length: random(3) }, (_, k) =>
        modelSpan(
          { startedAt: startedAt + 1 + k, endedAt: startedAt + 100 + k },
          {
            cost: (random(1000) + 1) / 1000,
            output: JSON.stringify({ tokenUsage: { promptTokens: 10 + k, completionTokens: 3, totalTokens: 13 + k } }),
          },
        ),
      );
      const { traceId } = await createTrace(
        h,
        traceBody(
          h,
          {
            startedAt,
            endedAt: startedAt + 1000,
            status: failed ? "failure" : "success",
            ...(session && { sessionId: session }),
            ...(user && { userId: user }),
          },
          spans.length > 0 ? spans : undefined,
          projectId,
        ),
      );
      const cost = spans.reduce((sum, span) => sum + span.content.cost, 0);
      const input = spans.reduce((sum, _span, k) => sum + 10 + k, 0);
      written.push({
        id: traceId,
        session,
        user,
        startedAt,
        failed,
        cost,
        input,
        output: 3 * spans.length,
      });
    }

    for (const [path, field, key] of [
      [`/projects/${projectId}/sessions`, "sessions", "session"],
      [`/projects/${projectId}/users`, "users", "user"],
    ] as const) {
      const expected = expectedTotals(written.map((trace) => ({ ...trace, group: trace[key] })));
      for (const [sort, order] of [
        ["", byLastSeen(-1)],
        ["lastSeenAt:desc", byLastSeen(-1)],
        ["lastSeenAt:asc", byLastSeen(1)],
        ["cost:desc", byCost(-1)],
        ["cost:asc", byCost(1)],
      ] as const) {
        const items: Totals[] = await listAll(h, sort ? `${path}?sort=${sort}` : path, field, 2);
        const sorted = [...expected].sort(order);
        expect(
          items.map((item) => item.id),
          sort,
        ).toEqual(sorted.map((item) => item.id));
        for (const [index, item] of items.entries()) {
          const { totalCost, ...exact } = sorted[index] as Totals;
          expect({ ...item, totalCost: undefined }).toEqual({ ...exact, totalCost: undefined });
          expect(item.totalCost).toBeCloseTo(totalCost, 9);
        }
      }
    }

    // One session's traces, oldest first, page by page.
    const session = "sess-3";
    const traces = await listAll(h, `/projects/${projectId}/sessions/${session}/traces`, "traces", 3);
    const ofSession = written
      .filter((trace) => trace.session === session)
      .sort((a, b) => a.startedAt - b.startedAt || (a.id < b.id ? -1 : 1));
    expect(traces.map((trace) => trace.id)).toEqual(ofSession.map((trace) => trace.id));
    expect(traces.every((trace) => trace.sessionId === session)).toBe(true);

    // A session no trace has is an empty page.
    const none = await list(h, `/projects/${projectId}/sessions/nobody/traces`);
    expect(none.status).toBe(200);
    expect(none.body.traces).toEqual([]);
  });

  it("keeps the totals exact after a span is added and a trace's status changes", async () => {
    const h = use();
    const projectId = await newProject(h);
    const { traceId } = await createTrace(
      h,
      traceBody(h, { sessionId: "s-1", userId: "u-1", referenceId: "conv-1" }, [modelSpan()], projectId),
    );
    await createTrace(
      h,
      traceBody(h, { sessionId: "s-1", startedAt: T0 + 5000, endedAt: T0 + 6000 }, undefined, projectId),
    );
    const added = await postSpan(h, { projectId, span: { ...modelSpan({ startedAt: T0 + 200 }), traceId } });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    const patched = await patchTrace(h, { projectId, traceId, logTrace: { status: "failure" } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);

    const sessions = await list(h, `/projects/${projectId}/sessions`);
    expect(sessions.body.sessions).toEqual([
      {
        id: "s-1",
        firstSeenAt: T0,
        lastSeenAt: T0 + 5000,
        traceCount: 2,
        errorCount: 1,
        totalCost: 0.5,
        totalInputTokens: 24,
        totalOutputTokens: 10,
      },
    ]);
    const users = await list(h, `/projects/${projectId}/users`);
    expect(users.body.users).toEqual([
      {
        id: "u-1",
        firstSeenAt: T0,
        lastSeenAt: T0,
        traceCount: 1,
        errorCount: 1,
        totalCost: 0.5,
        totalInputTokens: 24,
        totalOutputTokens: 10,
      },
    ]);
  });

  it("finds traces and spans by userId, flat and as a filter", async () => {
    const h = use();
    const projectId = await newProject(h);
    const alice = await createTrace(h, traceBody(h, { userId: "alice" }, [modelSpan()], projectId));
    const bob = await createTrace(h, traceBody(h, { userId: "bob", startedAt: T0 + 10 }, [modelSpan()], projectId));
    await createTrace(h, traceBody(h, { startedAt: T0 + 20 }, [modelSpan()], projectId));

    const traces = async (body: object) => {
      const reply = await h.request("POST", "/logs/traces", { body: { projectId, ...body } });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      return reply.body.traces.map((trace: { id: string; userId: string | null }) => [trace.id, trace.userId]);
    };
    const spans = async (body: object) => {
      const reply = await h.request("POST", "/logs/spans", { body: { projectId, ...body } });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      return reply.body.spans.map((span: { id: string }) => span.id);
    };
    expect(await traces({ userId: "alice" })).toEqual([[alice.traceId, "alice"]]);
    expect(await traces({ filters: [{ column: "userId", operator: "in", value: ["alice", "bob"] }] })).toEqual([
      [bob.traceId, "bob"],
      [alice.traceId, "alice"],
    ]);
    expect(await traces({ filters: [{ column: "userId", operator: "exists", value: false }] })).toHaveLength(1);
    expect(await spans({ userId: "bob" })).toEqual(bob.spanIds);
    expect(await spans({ filters: [{ column: "userId", operator: "equals", value: "alice" }] })).toEqual(alice.spanIds);
    expect(await spans({ filters: [{ column: "userId", operator: "not-equals", value: "alice" }] })).toHaveLength(2);
  });

  it("refuses an unknown sort, a bad or foreign cursor, a too-long userId and a too-long session id (400), nothing stored", async () => {
    const h = use();
    const projectId = await newProject(h);
    await createTrace(h, traceBody(h, { sessionId: "a", userId: "a" }, undefined, projectId));
    await createTrace(h, traceBody(h, { sessionId: "b", userId: "b", startedAt: T0 + 1 }, undefined, projectId));

    await expectError(await list(h, `/projects/${projectId}/sessions?sort=name:asc`), 400, "VALIDATION_ERROR");
    await expectError(await list(h, `/projects/${projectId}/users?sort=cost`), 400, "VALIDATION_ERROR");
    await expectError(await list(h, `/projects/${projectId}/sessions?cursor=not-a-cursor`), 400, "INVALID_CURSOR");
    const first = await list(h, `/projects/${projectId}/sessions?limit=1`);
    const cursor = first.body.pagination.nextCursor;
    expect(cursor).toEqual(expect.any(String));
    // A cursor of another sort, of the other list, or of another project is not this query's.
    await expectError(
      await list(h, `/projects/${projectId}/sessions?sort=cost:desc&cursor=${cursor}`),
      400,
      "INVALID_CURSOR",
    );
    await expectError(await list(h, `/projects/${projectId}/users?cursor=${cursor}`), 400, "INVALID_CURSOR");
    await expectError(await list(h, `/projects/${h.projectId}/sessions?cursor=${cursor}`), 400, "INVALID_CURSOR");
    await expectError(
      await list(h, `/projects/${projectId}/sessions/${"s".repeat(129)}/traces`),
      400,
      "VALIDATION_ERROR",
    );

    const tooLong = await h.request("POST", "/logs/trace", {
      body: traceBody(h, { userId: "u".repeat(129) }, undefined, projectId),
    });
    await expectError(tooLong, 400, "VALIDATION_ERROR");
    expect(tooLong.body.error.details).toEqual([expect.objectContaining({ field: "trace.userId" })]);
    const search = await h.request("POST", "/logs/traces", { body: { projectId, userId: "u".repeat(129) } });
    await expectError(search, 400, "VALIDATION_ERROR");
    const users = await list(h, `/projects/${projectId}/users`);
    expect(users.body.users.map((user: Totals) => user.id)).toEqual(["b", "a"]);
  });
});
