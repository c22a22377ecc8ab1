/**
 * The common log searches are served by an index, not by a scan of the log tables. The searches go through
 * the HTTP API of a second app on the same database whose Kysely handle records the SQL it runs; each
 * recorded search is then explained: EXPLAIN QUERY PLAN on SQLite, EXPLAIN on PostgreSQL with
 * `enable_seqscan = off` for that session (with a few hundred rows its planner would rightly prefer a
 * sequential scan; switched off, it still chooses one when no index can serve the query, which is what this
 * test must catch).
 */
import { sql } from "kysely";
import { beforeAll, expect, it } from "vitest";
import { describeEachStore } from "../../testing/harness.ts";
import { insertSpan, insertTrace, newProject, T0 } from "../../testing/log-search-fixtures.ts";
import { explain, recordingApp } from "../../testing/query-plans.ts";

type Body = Record<string, unknown>;

const LOG_TABLES = ["logTraces", "logSpans", "logAttributes", "logTags"];

/**
 * No step scans a log table, and one index lookup is bounded by the project and by the search's selective
 * `column` (the same line of the plan: SQLite's `SEARCH … USING INDEX … (projectId=? AND …)`, PostgreSQL's
 * `Index Cond: (("projectId" = …) AND …)`).
 */
function expectIndexed(dialect: string, plan: string, column: string) {
  if (process.env.SHOW_PLANS) console.log(`--- ${column}\n${plan}`);
  for (const table of LOG_TABLES) {
    const scan =
      dialect === "sqlite" ? new RegExp(`^SCAN ${table}\\b`, "m") : new RegExp(`Seq Scan on "?${table}"?`, "m");
    expect(plan, `a full scan of ${table}`).not.toMatch(scan);
  }
  const lines = plan.split("\n");
  const lookups =
    dialect === "sqlite"
      ? lines.filter((line) => /^SEARCH \w+ USING (COVERING INDEX \w+|INDEX \w+|PRIMARY KEY) \(projectId=\?/.test(line))
      : lines.filter((line) => /Index Cond: \(+"projectId" = /.test(line));
  const bounded = new RegExp(`[ ("]${column}"? ?[=<>,]`);
  expect(
    column === "projectId" ? lookups : lookups.filter((line) => bounded.test(line.replace(/^.*?projectId"? ?=/, ""))),
    `an index lookup on projectId and ${column} in\n${plan}`,
  ).not.toEqual([]);
}

describeEachStore("log search query plans", (use) => {
  let projectId: string;
  let promptId: string;
  let cursors: { traces: string; spans: string };
  let recording: Awaited<ReturnType<typeof recordingApp>>;

  beforeAll(async () => {
    const h = use();
    projectId = await newProject(h, "Plans");
    promptId = (await h.request("POST", "/prompts", { body: { projectId } })).body.id;
    const other = await newProject(h, "Plans (other)");
    // Rows in two projects, with sessions, references, prompts, attributes and tags.
    for (let i = 0; i < 200; i++) {
      const traceId = await insertTrace(h, {
        projectId: i % 4 === 0 ? other : projectId,
        startedAt: T0 + i * 1000,
        status: i % 10 === 0 ? "failure" : "success",
        sessionId: `sess-${i % 20}`,
        referenceId: `ref-${i}`,
        attributes: { plan: i % 2 ? "pro" : "free", n: i },
        tags: [i % 3 ? "production" : "staging"],
      });
      await insertSpan(h, traceId, {
        startedAt: T0 + i * 1000 + 1,
        status: i % 10 === 0 ? "failure" : "success",
        sessionId: `sess-${i % 20}`,
        referenceId: `span-ref-${i}`,
        promptId: i % 5 === 0 ? promptId : null,
        attributes: { plan: i % 2 ? "pro" : "free" },
        tags: ["production"],
      });
    }
    // Statistics, as a database in use has them (both dialects spell it the same).
    await sql`analyze`.execute(h.store.db);
    recording = await recordingApp(h);
    const page = async (path: string) =>
      (await h.request("POST", path, { body: { projectId, limit: 5 } })).body.pagination.nextCursor as string;
    cursors = { traces: await page("/logs/traces"), spans: await page("/logs/spans") };
  });

  const range = () => ({ projectId, startedAfter: T0 + 20_000, startedBefore: T0 + 120_000 });
  const cases: [string, () => Body, string][] = [
    ["project + time range", range, "startedAt"],
    ["project, no range", () => ({ projectId }), "projectId"],
    ["+ status", () => ({ ...range(), status: "failure" }), "status"],
    ["+ sessionId", () => ({ ...range(), sessionId: "sess-3" }), "sessionId"],
    ["+ referenceId", () => ({ ...range(), referenceId: "ref-7" }), "referenceId"],
    ["+ name substring", () => ({ ...range(), name: "chat" }), "startedAt"],
    [
      "+ attribute key",
      () => ({ ...range(), filters: [{ column: "attributes", key: "plan", operator: "equals", value: "pro" }] }),
      "key",
    ],
    ["+ tag", () => ({ ...range(), filters: [{ column: "tags", operator: "contains", value: "staging" }] }), "tag"],
    // A negative condition looks up each candidate's side row by the side table's key: no scan.
    [
      "+ attribute not-equals and tag not-contains",
      () => ({
        ...range(),
        filters: [
          { column: "attributes", key: "plan", operator: "not-equals", value: "pro" },
          { column: "tags", operator: "not-contains", value: "staging" },
        ],
      }),
      "startedAt",
    ],
  ];

  for (const [name, body, column] of cases) {
    it(`searchLogTraces: ${name} uses an index on ${column}`, async () => {
      const h = use();
      const plan = await explain(h, await recording.searchQuery("/logs/traces", body()));
      expectIndexed(h.store.dialect, plan, column);
    });
    it(`searchLogSpans: ${name} uses an index on ${column}`, async () => {
      const h = use();
      // Span references are their own (`span-ref-…`).
      const spanBody = { ...body(), ...(body().referenceId !== undefined && { referenceId: "span-ref-7" }) };
      const plan = await explain(h, await recording.searchQuery("/logs/spans", spanBody));
      expectIndexed(h.store.dialect, plan, column);
    });
  }

  it("searchLogSpans: + promptId uses an index on promptId", async () => {
    const h = use();
    const plan = await explain(h, await recording.searchQuery("/logs/spans", { ...range(), promptId }));
    expectIndexed(h.store.dialect, plan, "promptId");
  });

  // A trace's spans in time order, as a trace view pages them: one range of the trace index, not a walk of
  // the project's time index (which SQLite chose while the trace index lacked the keyset's id, ADR 0026).
  it("searchLogSpans: + logTraceId, in either order and after a cursor, uses the trace index", async () => {
    const h = use();
    const trace = await h.request("POST", "/logs/traces", { body: { projectId, limit: 1 } });
    const logTraceId = trace.body.traces[0].id as string;
    for (let i = 1; i <= 2; i++) await insertSpan(h, logTraceId, { startedAt: T0 + 500_000 + i });
    for (const sort of ["startedAt:asc", "startedAt:desc"]) {
      const body = { projectId, logTraceId, sort, limit: 1 };
      const first = await h.request("POST", "/logs/spans", { body });
      expect(first.status).toBe(200);
      const cursor = first.body.pagination.nextCursor as string;
      for (const page of [body, { ...body, cursor }]) {
        const plan = await explain(h, await recording.searchQuery("/logs/spans", page));
        const byTrace =
          h.store.dialect === "sqlite"
            ? /^SEARCH logSpans USING INDEX logSpansByTrace \(traceId=\?/m
            : /Index (Only )?Scan( Backward)? using "?logSpansByTrace"?/m;
        expect(plan, `${sort} ${"cursor" in page ? "later page" : "first page"}`).toMatch(byTrace);
        expect(plan).not.toMatch(/USE TEMP B-TREE FOR ORDER BY|Sort Key/);
      }
    }
  });

  it("a later page is a range of the index (the keyset condition is an index condition)", async () => {
    const h = use();
    for (const [path, cursor] of [
      ["/logs/traces", cursors.traces],
      ["/logs/spans", cursors.spans],
    ] as const) {
      const plan = await explain(h, await recording.searchQuery(path, { projectId, limit: 5, cursor }));
      expectIndexed(h.store.dialect, plan, "startedAt");
    }
  });

  it("a later page of a ranged search starts its index range at the cursor, not at the range's end", async () => {
    const h = use();
    const attribute = { filters: [{ column: "attributes", key: "plan", operator: "equals", value: "pro" }] };
    for (const path of ["/logs/traces", "/logs/spans"]) {
      for (const body of [range(), { ...range(), ...attribute }, { ...range(), sort: "startedAt:asc" }]) {
        const first = await h.request("POST", path, { body: { ...body, limit: 3 } });
        const cursor = first.body.pagination.nextCursor as string;
        const plan = await explain(h, await recording.searchQuery(path, { ...body, limit: 3, cursor }));
        const keyset =
          h.store.dialect === "sqlite"
            ? /^SEARCH \w+ USING (COVERING INDEX \w+|INDEX \w+|PRIMARY KEY) \(projectId=\?.*\(startedAt,(id|ownerId)\)[<>]\(\?,\?\)/m
            : /Index Cond: \(+"projectId" = .*ROW\("startedAt", (id|"ownerId")\) [<>] ROW\(/m;
        expect(plan, `${path} ${JSON.stringify(body)}`).toMatch(keyset);
      }
    }
  });
});
