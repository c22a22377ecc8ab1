import { expect, it } from "vitest";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore, type Harness } from "../../testing/harness.ts";
import { insertSpan, insertTrace, newProject, T0 } from "../../testing/log-search-fixtures.ts";

type Body = Record<string, unknown>;

const search = (h: Harness, body: Body, key?: string) => h.request("POST", "/logs/traces", { body, key });

/** The ids the search returns, in order; fails on anything but 200. */
async function ids(h: Harness, body: Body): Promise<string[]> {
  const reply = await search(h, { limit: 200, ...body });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.traces.map((trace: { id: string }) => trace.id);
}

describeEachStore("searchLogTraces", (use) => {
  it("returns the project's traces (200) newest first, every LogTrace field present, nothing of other projects", async () => {
    const h = use();
    const projectId = await newProject(h);
    const full = await insertTrace(h, {
      projectId,
      name: "support-chat",
      status: "failure",
      startedAt: T0 + 1000,
      endedAt: T0 + 3000,
      referenceId: "req-1",
      sessionId: "sess-1",
      userId: "user-1",
      attributes: { "user.plan": "pro", retries: 2, cached: false },
      tags: ["production", "checkout"],
      totalCost: 0.5,
      totalInputTokens: 12,
      totalOutputTokens: 5,
    });
    const spanId = await insertSpan(h, full, { startedAt: T0 + 1100 });
    const bare = await insertTrace(h, { projectId, startedAt: T0 });
    await insertTrace(h, { startedAt: T0 + 2000 }); // the harness's default project

    const reply = await search(h, { projectId });
    expect(reply.status).toBe(200);
    expect(reply.body.pagination).toEqual({ limit: 50, returned: 2, hasMore: false, nextCursor: null });
    const [first, second] = reply.body.traces;
    expect(first).toEqual({
      id: full,
      name: "support-chat",
      status: "failure",
      startedAt: T0 + 1000,
      endedAt: T0 + 3000,
      latency: 2000,
      referenceId: "req-1",
      sessionId: "sess-1",
      userId: "user-1",
      attributes: { "user.plan": "pro", retries: 2, cached: false },
      tags: ["production", "checkout"],
      totalCost: 0.5,
      totalInputTokens: 12,
      totalOutputTokens: 5,
      spanIds: [spanId],
      scores: [],
      createdAt: T0 + 3001,
      updatedAt: T0 + 3001,
    });
    expect(second).toMatchObject({
      id: bare,
      referenceId: null,
      sessionId: null,
      userId: null,
      attributes: {},
      tags: [],
      spanIds: [],
    });
  });

  it("applies the flat fields: inclusive time range, status, name substring, exact referenceId and sessionId", async () => {
    const h = use();
    const projectId = await newProject(h);
    const a = await insertTrace(h, { projectId, startedAt: T0, name: "Support-Chat", status: "failure" });
    const b = await insertTrace(h, { projectId, startedAt: T0 + 10, name: "checkout", referenceId: "ref-b" });
    const c = await insertTrace(h, { projectId, startedAt: T0 + 20, name: "100%_done", sessionId: "sess-c" });
    const d = await insertTrace(h, { projectId, startedAt: T0 + 30, name: "1000 done", sessionId: "sess-C" });

    expect(await ids(h, { projectId, startedAfter: T0 + 10 })).toEqual([d, c, b]);
    expect(await ids(h, { projectId, startedBefore: T0 + 10 })).toEqual([b, a]);
    expect(await ids(h, { projectId, startedAfter: T0 + 10, startedBefore: T0 + 20 })).toEqual([c, b]);
    expect(await ids(h, { projectId, status: "failure" })).toEqual([a]);
    expect(await ids(h, { projectId, status: "aborted" })).toEqual([]);
    expect(await ids(h, { projectId, name: "CHAT" })).toEqual([a]);
    expect(await ids(h, { projectId, name: "t-c" })).toEqual([a]);
    // `%` and `_` are literal characters of the substring, not wildcards.
    expect(await ids(h, { projectId, name: "0%_" })).toEqual([c]);
    expect(await ids(h, { projectId, name: "%" })).toEqual([c]);
    expect(await ids(h, { projectId, name: "0_d" })).toEqual([]);
    expect(await ids(h, { projectId, referenceId: "ref-b" })).toEqual([b]);
    expect(await ids(h, { projectId, referenceId: "REF-B" })).toEqual([]);
    expect(await ids(h, { projectId, sessionId: "sess-c" })).toEqual([c]);
    expect(await ids(h, { projectId, name: "done", sessionId: "sess-C", startedAfter: T0 })).toEqual([d]);
  });

  it("logTraceId returns that trace only; another project's trace or an unknown id matches nothing", async () => {
    const h = use();
    const projectId = await newProject(h);
    const otherProjectId = await newProject(h);
    const wanted = await insertTrace(h, { projectId, name: "wanted" });
    await insertTrace(h, { projectId, name: "other" });
    const elsewhere = await insertTrace(h, { projectId: otherProjectId, name: "elsewhere" });
    expect(await ids(h, { projectId, logTraceId: wanted })).toEqual([wanted]);
    expect(await ids(h, { projectId, logTraceId: elsewhere })).toEqual([]);
    expect(await ids(h, { projectId, logTraceId: "trace_01JD8Q4KZ8T6V2M3N4P5Q6R7S8" })).toEqual([]);
    expectError(await search(h, { projectId, logTraceId: "trace_1" }), 400, "VALIDATION_ERROR");
  });

  it("filters text columns with every operator; null values match only the negative operators and exists:false", async () => {
    const h = use();
    const projectId = await newProject(h);
    const a = await insertTrace(h, { projectId, startedAt: T0, name: "alpha", sessionId: "S1", referenceId: "r-1" });
    const b = await insertTrace(h, { projectId, startedAt: T0 + 1, name: "Beta", sessionId: "s2" });
    const c = await insertTrace(h, { projectId, startedAt: T0 + 2, name: "gamma" });
    const f = (column: string, operator: string, value: unknown) =>
      ids(h, { projectId, filters: [{ column, operator, value }] });

    expect(await f("name", "equals", "Beta")).toEqual([b]);
    expect(await f("name", "equals", "beta")).toEqual([]);
    expect(await f("name", "not-equals", "Beta")).toEqual([c, a]);
    expect(await f("name", "contains", "ETA")).toEqual([b]);
    expect(await f("name", "not-contains", "a")).toEqual([]);
    expect(await f("name", "not-contains", "AMM")).toEqual([b, a]);
    expect(await f("name", "in", ["alpha", "gamma", "BETA"])).toEqual([c, a]);
    expect(await f("name", "not-in", ["alpha"])).toEqual([c, b]);
    expect(await f("name", "exists", true)).toEqual([c, b, a]);
    expect(await f("name", "exists", false)).toEqual([]);

    expect(await f("sessionId", "equals", "S1")).toEqual([a]);
    expect(await f("sessionId", "not-equals", "S1")).toEqual([c, b]);
    expect(await f("sessionId", "contains", "s")).toEqual([b, a]);
    expect(await f("sessionId", "not-contains", "1")).toEqual([c, b]);
    expect(await f("sessionId", "in", ["S1", "s2"])).toEqual([b, a]);
    expect(await f("sessionId", "not-in", ["S1", "s2"])).toEqual([c]);
    expect(await f("sessionId", "exists", true)).toEqual([b, a]);
    expect(await f("sessionId", "exists", false)).toEqual([c]);

    expect(await f("referenceId", "equals", "r-1")).toEqual([a]);
    expect(await f("referenceId", "not-equals", "r-1")).toEqual([c, b]);
    expect(await f("referenceId", "exists", false)).toEqual([c, b]);
    // An optional `type` is accepted and ignored.
    expect(
      await ids(h, { projectId, filters: [{ type: "x", column: "name", operator: "equals", value: "alpha" }] }),
    ).toEqual([a]);
  });

  it("filters status with equals, not-equals, in and not-in", async () => {
    const h = use();
    const projectId = await newProject(h);
    const ok = await insertTrace(h, { projectId, startedAt: T0, status: "success" });
    const failed = await insertTrace(h, { projectId, startedAt: T0 + 1, status: "failure" });
    const aborted = await insertTrace(h, { projectId, startedAt: T0 + 2, status: "aborted" });
    const f = (operator: string, value: unknown) =>
      ids(h, { projectId, filters: [{ column: "status", operator, value }] });
    expect(await f("equals", "failure")).toEqual([failed]);
    expect(await f("not-equals", "failure")).toEqual([aborted, ok]);
    expect(await f("in", ["aborted", "success"])).toEqual([aborted, ok]);
    expect(await f("not-in", ["aborted", "success"])).toEqual([failed]);
  });

  it("filters the numeric columns (latency, cost, tokens from the aggregates) and the times", async () => {
    const h = use();
    const projectId = await newProject(h);
    const cheap = await insertTrace(h, {
      projectId,
      startedAt: T0,
      endedAt: T0 + 500,
      totalCost: 0.001,
      totalInputTokens: 10,
      totalOutputTokens: 5,
    });
    const dear = await insertTrace(h, {
      projectId,
      startedAt: T0 + 1,
      endedAt: T0 + 2001,
      totalCost: 0.25,
      totalInputTokens: 100,
      totalOutputTokens: 50,
    });
    const empty = await insertTrace(h, { projectId, startedAt: T0 + 2, endedAt: T0 + 2 });
    const f = (column: string, operator: string, value: unknown) =>
      ids(h, { projectId, filters: [{ column, operator, value }] });

    expect(await f("latency", "gt", 1000)).toEqual([dear]);
    expect(await f("latency", "gte", 500)).toEqual([dear, cheap]);
    expect(await f("latency", "lt", 500)).toEqual([empty]);
    expect(await f("latency", "lte", 499.5)).toEqual([empty]);
    expect(await f("latency", "equals", 2000)).toEqual([dear]);
    expect(await f("latency", "not-equals", 2000)).toEqual([empty, cheap]);
    expect(await f("latency", "gt", 499.5)).toEqual([dear, cheap]);
    expect(await f("cost", "gt", 0.01)).toEqual([dear]);
    expect(await f("cost", "equals", 0)).toEqual([empty]);
    expect(await f("cost", "lte", 0.001)).toEqual([empty, cheap]);
    expect(await f("inputTokens", "gte", 10)).toEqual([dear, cheap]);
    expect(await f("outputTokens", "lt", 50)).toEqual([empty, cheap]);
    expect(await f("totalTokens", "equals", 15)).toEqual([cheap]);
    expect(await f("totalTokens", "gt", 100)).toEqual([dear]);
    expect(await f("startedAt", "equals", T0 + 1)).toEqual([dear]);
    expect(await f("startedAt", "not-equals", T0 + 1)).toEqual([empty, cheap]);
    expect(await f("startedAt", "gte", T0 + 1)).toEqual([empty, dear]);
    expect(await f("endedAt", "gt", T0 + 2)).toEqual([dear, cheap]);
    expect(await f("endedAt", "lt", T0 + 500)).toEqual([empty]);
  });

  it("filters tags with contains, not-contains, in and not-in (exact, case-sensitive)", async () => {
    const h = use();
    const projectId = await newProject(h);
    const prod = await insertTrace(h, { projectId, startedAt: T0, tags: ["production", "checkout"] });
    const staging = await insertTrace(h, { projectId, startedAt: T0 + 1, tags: ["staging"] });
    const none = await insertTrace(h, { projectId, startedAt: T0 + 2 });
    const f = (operator: string, value: unknown) =>
      ids(h, { projectId, filters: [{ column: "tags", operator, value }] });
    expect(await f("contains", "production")).toEqual([prod]);
    expect(await f("contains", "Production")).toEqual([]);
    expect(await f("contains", "prod")).toEqual([]);
    expect(await f("not-contains", "production")).toEqual([none, staging]);
    expect(await f("in", ["checkout", "staging"])).toEqual([staging, prod]);
    expect(await f("not-in", ["checkout", "staging"])).toEqual([none]);
    // Two tag conditions are ANDed.
    const both = await ids(h, {
      projectId,
      filters: [
        { column: "tags", operator: "contains", value: "production" },
        { column: "tags", operator: "contains", value: "checkout" },
      ],
    });
    expect(both).toEqual([prod]);
  });

  it("filters attributes by key with typed values, substrings, numeric comparisons, lists and exists", async () => {
    const h = use();
    const projectId = await newProject(h);
    const a = await insertTrace(h, { projectId, startedAt: T0, attributes: { plan: "Pro", n: 1, flag: true } });
    const b = await insertTrace(h, { projectId, startedAt: T0 + 1, attributes: { plan: "team", n: "1", flag: false } });
    const c = await insertTrace(h, { projectId, startedAt: T0 + 2, attributes: { n: 5.5, "user.plan": "pro" } });
    const none = await insertTrace(h, { projectId, startedAt: T0 + 3 });
    const f = (key: string, operator: string, value: unknown) =>
      ids(h, { projectId, filters: [{ column: "attributes", key, operator, value }] });

    expect(await f("plan", "equals", "Pro")).toEqual([a]);
    expect(await f("plan", "equals", "pro")).toEqual([]);
    expect(await f("user.plan", "equals", "pro")).toEqual([c]);
    expect(await f("n", "equals", 1)).toEqual([a]);
    expect(await f("n", "equals", "1")).toEqual([b]);
    expect(await f("flag", "equals", true)).toEqual([a]);
    expect(await f("flag", "equals", false)).toEqual([b]);
    expect(await f("n", "not-equals", 1)).toEqual([none, c, b]);
    expect(await f("plan", "contains", "PR")).toEqual([a]);
    expect(await f("plan", "not-contains", "pr")).toEqual([none, c, b]);
    expect(await f("n", "not-contains", "1")).toEqual([none, c, a]);
    expect(await f("n", "gt", 1)).toEqual([c]);
    expect(await f("n", "gte", 1)).toEqual([c, a]);
    expect(await f("n", "lt", 5.5)).toEqual([a]);
    expect(await f("n", "lte", 100)).toEqual([c, a]);
    expect(await f("n", "in", [1, "1"])).toEqual([b, a]);
    expect(await f("n", "in", [5.5, true])).toEqual([c]);
    expect(await f("flag", "in", [false, "true"])).toEqual([b]);
    expect(await f("n", "not-in", [1, 5.5])).toEqual([none, b]);
    expect(await f("plan", "exists", true)).toEqual([b, a]);
    expect(await f("plan", "exists", false)).toEqual([none, c]);
  });

  it("ANDs up to 20 filters with each other and with the flat fields", async () => {
    const h = use();
    const projectId = await newProject(h);
    const hit = await insertTrace(h, { projectId, startedAt: T0, name: "checkout", tags: ["p"], attributes: { k: 1 } });
    await insertTrace(h, { projectId, startedAt: T0 + 1, name: "checkout", tags: ["p"], attributes: { k: 2 } });
    await insertTrace(h, { projectId, startedAt: T0 + 2, name: "other", tags: ["p"], attributes: { k: 1 } });
    const filters = [
      { column: "tags", operator: "contains", value: "p" },
      { column: "attributes", key: "k", operator: "equals", value: 1 },
      ...Array.from({ length: 18 }, () => ({ column: "status", operator: "equals", value: "success" })),
    ];
    expect(await ids(h, { projectId, name: "check", filters })).toEqual([hit]);
  });

  it("sorts by startedAt (default desc), breaking ties by id in the same direction", async () => {
    const h = use();
    const projectId = await newProject(h);
    const first = await insertTrace(h, { projectId, startedAt: T0 });
    const tieA = await insertTrace(h, { projectId, startedAt: T0 + 5 });
    const tieB = await insertTrace(h, { projectId, startedAt: T0 + 5 });
    const last = await insertTrace(h, { projectId, startedAt: T0 + 9 });
    const [x, y] = [tieA, tieB].sort();
    expect(await ids(h, { projectId })).toEqual([last, y, x, first]);
    expect(await ids(h, { projectId, sort: "startedAt:desc" })).toEqual([last, y, x, first]);
    expect(await ids(h, { projectId, sort: "startedAt:asc" })).toEqual([first, x, y, last]);
  });

  it("pages with limit and an opaque cursor bound to the search (only limit may change)", async () => {
    const h = use();
    const projectId = await newProject(h);
    const all: string[] = [];
    for (let i = 0; i < 7; i++) all.push(await insertTrace(h, { projectId, startedAt: T0 + (i % 3), tags: ["t"] }));
    const body = { projectId, filters: [{ column: "tags", operator: "contains", value: "t" }], sort: "startedAt:asc" };
    const expected = await ids(h, body);
    expect(expected.slice().sort()).toEqual(all.slice().sort());

    const walked: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const reply = await search(h, { ...body, limit: pages === 0 ? 3 : 2, ...(cursor && { cursor }) });
      expect(reply.status).toBe(200);
      walked.push(...reply.body.traces.map((t: { id: string }) => t.id));
      expect(reply.body.pagination.returned).toBe(reply.body.traces.length);
      expect(reply.body.pagination.hasMore).toBe(reply.body.pagination.nextCursor !== null);
      cursor = reply.body.pagination.nextCursor ?? undefined;
      pages++;
    } while (cursor);
    expect(walked).toEqual(expected);
    expect(pages).toBe(3);

    const page = await search(h, { ...body, limit: 1 });
    const next: string = page.body.pagination.nextCursor;
    // The same search with its filter's keys in another order and an ignored `type` keeps the cursor valid.
    const reordered = { ...body, filters: [{ value: "t", type: "x", operator: "contains", column: "tags" }] };
    expect((await search(h, { ...reordered, cursor: next })).status).toBe(200);
    for (const other of [
      { ...body, sort: "startedAt:desc" },
      { ...body, filters: [] },
      { ...body, name: "x" },
      { ...body, startedAfter: T0 },
      { projectId: h.projectId, filters: body.filters, sort: body.sort },
    ]) {
      await expectError(await search(h, { ...other, cursor: next }), 400, "INVALID_CURSOR");
    }
    const [payload, signature] = next.split(".") as [string, string];
    const forged = `${Buffer.from(JSON.stringify({ v: 1, q: "x", k: [T0, "trace_x"] })).toString("base64url")}.${signature}`;
    for (const bad of ["garbage", `${payload}.AAAA`, forged, `${next}x`, "a.b.c"]) {
      await expectError(await search(h, { ...body, cursor: bad }), 400, "INVALID_CURSOR");
    }
  });

  it("answers 400 for a contentType filter on traces, naming the filter's column", async () => {
    const h = use();
    const projectId = h.projectId;
    for (const operator of ["equals", "in", "exists"]) {
      const value = operator === "in" ? ["Model"] : operator === "exists" ? true : "Model";
      const reply = await search(h, {
        projectId,
        filters: [
          { column: "name", operator: "exists", value: true },
          { column: "contentType", operator, value },
        ],
      });
      await expectError(reply, 400, "VALIDATION_ERROR");
      expect(reply.body.error.details).toEqual([
        { field: "filters.1.column", issue: expect.stringContaining("spans") },
      ]);
    }
  });
});
