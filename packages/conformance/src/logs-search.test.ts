/** Log search and export (POST /logs/traces, /logs/spans and their /export) through the client, every response validated against the spec. */
import { paginate, unwrap } from "@pharos/client";
import { beforeAll, describe, expect, it } from "vitest";
import { errorMatrixOf, itProvokedEveryDocumentedStatus, type Send } from "./cases.ts";
import { newProject, newPrompt, runTag, type Schemas, unknownId } from "./fixtures.ts";
import { expectError, expectStatus } from "./replies.ts";
import { useTarget } from "./target.ts";

type LogFilter = Schemas["LogFilter"];

const use = useTarget();
const itAnswersTheErrorMatrix = errorMatrixOf(use, () => projectId);
const run = runTag();

/** An hour ago, so every time the scenarios write is in the past, whatever the server's clock checks. */
const T = Date.now() - 3_600_000;

let projectId: string;
let promptId: string;
/** Traces written by the scenarios, oldest first, and their spans. */
const traces: { id: string; spanIds: string[] }[] = [];

const modelContent = (provider: string, model: string) => ({
  type: "Model" as const,
  provider,
  model,
  input: '{"messages":[]}',
  output: '{"messages":[],"tokenUsage":{"promptTokens":12,"completionTokens":5,"totalTokens":17}}',
  cost: 0.000021,
});

beforeAll(async () => {
  const { client } = use();
  projectId = (await newProject(client, `Logs search ${run}`)).id;
  promptId = (await newPrompt(client, projectId, { title: `Logged ${run}` })).id;
  for (let i = 0; i < 3; i++) {
    const startedAt = T + i * 1000;
    const written = unwrap(
      await client.POST("/logs/trace", {
        body: {
          projectId,
          trace: {
            name: i === 1 ? `checkout-${run}` : `support-${run}`,
            status: i === 2 ? "failure" : "success",
            startedAt,
            endedAt: startedAt + 900,
            referenceId: `req-${run}-${i}`,
            sessionId: `sess-${run}`,
            attributes: { "user.plan": i === 0 ? "pro" : "free", retries: i },
            tags: i === 0 ? ["production"] : ["staging"],
          },
          spans: [
            {
              name: "llm-call",
              status: "success",
              startedAt: startedAt + 100,
              endedAt: startedAt + 600,
              promptId: i === 0 ? promptId : undefined,
              content: modelContent(i === 2 ? "anthropic" : "openai", i === 2 ? "claude-3-5" : "gpt-4o-mini"),
            },
            {
              name: "lookup_order",
              status: "success",
              startedAt: startedAt + 700,
              endedAt: startedAt + 750,
              content: JSON.stringify({ type: "Tool", input: '{"orderId":"8812"}', output: '{"status":"shipped"}' }),
            },
          ],
        },
      }),
    );
    traces.push({ id: written.traceId, spanIds: written.spanIds });
  }
});

describe("searchLogTraces", () => {
  const send: Send = (client, extra, id = projectId) =>
    client.POST("/logs/traces", { body: { projectId: id }, ...extra });

  it("200: returns the project's traces newest first, with their aggregates, attributes and tags", async () => {
    const reply = await use().client.POST("/logs/traces", { body: { projectId } });
    expectStatus(reply, 200);
    expect(reply.data?.traces.map((trace) => trace.id)).toEqual(traces.map((trace) => trace.id).reverse());
    expect(reply.data?.pagination).toEqual({ limit: 50, returned: 3, hasMore: false, nextCursor: null });
    expect(reply.data?.traces[2]).toMatchObject({
      id: traces[0]?.id,
      name: `support-${run}`,
      status: "success",
      startedAt: T,
      endedAt: T + 900,
      latency: 900,
      referenceId: `req-${run}-0`,
      sessionId: `sess-${run}`,
      attributes: { "user.plan": "pro", retries: 0 },
      tags: ["production"],
      totalInputTokens: 12,
      totalOutputTokens: 5,
      spanIds: traces[0]?.spanIds,
    });
  });

  it("200: applies the flat fields and typed filters, ANDed", async () => {
    const { client } = use();
    const ids = async (body: Omit<Schemas["SearchLogTracesRequest"], "projectId">) =>
      unwrap(await client.POST("/logs/traces", { body: { projectId, ...body } })).traces.map((trace) => trace.id);
    const [t0, t1, t2] = traces.map((trace) => trace.id);
    expect(await ids({ startedAfter: T + 1000, startedBefore: T + 2000 })).toEqual([t2, t1]);
    expect(await ids({ name: "CHECKOUT" })).toEqual([t1]);
    expect(await ids({ status: "failure" })).toEqual([t2]);
    expect(await ids({ referenceId: `req-${run}-0` })).toEqual([t0]);
    expect(await ids({ logTraceId: t1 as string })).toEqual([t1]);
    expect(await ids({ logTraceId: unknownId("trace") })).toEqual([]);
    expect(await ids({ sessionId: `sess-${run}`, sort: "startedAt:asc" })).toEqual([t0, t1, t2]);
    const filters: LogFilter[] = [
      { column: "attributes", key: "user.plan", operator: "equals", value: "free" },
      { column: "attributes", key: "retries", operator: "gte", value: 2 },
      { column: "tags", operator: "contains", value: "staging" },
      { column: "latency", operator: "equals", value: 900 },
    ];
    expect(await ids({ filters })).toEqual([t2]);
    expect(await ids({ filters: [{ column: "tags", operator: "not-in", value: ["production"] }] })).toEqual([t2, t1]);
  });

  it("200: pages with limit and cursor, every trace once", async () => {
    const all = [];
    for await (const trace of paginate(use().client, "POST", "/logs/traces", {
      body: { projectId, limit: 1, sort: "startedAt:asc" },
    })) {
      all.push(trace.id);
    }
    expect(all).toEqual(traces.map((trace) => trace.id));
  });

  it("400 VALIDATION_ERROR for limit 0 and 201, 21 filters, a bad operator, a wrong value type and contentType", async () => {
    const { client } = use();
    const exists = { column: "name", operator: "exists", value: true };
    const bodies = [
      { projectId, limit: 0 },
      { projectId, limit: 201 },
      { projectId, filters: Array.from({ length: 21 }, () => exists) },
      { projectId, filters: [{ column: "status", operator: "gt", value: "failure" }] },
      { projectId, filters: [{ column: "latency", operator: "gt", value: "1000" }] },
      { projectId, filters: [{ column: "tags", operator: "in", value: "production" }] },
      { projectId, filters: [{ column: "contentType", operator: "equals", value: "Model" }] },
      {},
    ];
    for (const body of bodies) {
      expectError(await client.POST("/logs/traces", { body: body as never }), 400, "VALIDATION_ERROR");
    }
  });

  it("400 VALIDATION_ERROR for each malformed search of the schema: fields, paging, sort, and filters of every column", async () => {
    const { client } = use();
    const filter = (f: Record<string, unknown>) => ({ projectId, filters: [f] });
    const bodies = [
      { projectId: "project_short" },
      { projectId, limit: 1.5 },
      { projectId, sort: "createdAt:desc" },
      { projectId, status: "done" },
      { projectId, startedAfter: -1 },
      { projectId, name: "" },
      { projectId, promptId: "prompt_01JD8Q4M1N0B5ZK3W7X9Y2C4VA" },
      { projectId, extra: 1 },
      filter({ column: "status", operator: "contains", value: "fail" }),
      filter({ column: "name", operator: "gt", value: "a" }),
      filter({ column: "latency", operator: "contains", value: 1 }),
      filter({ column: "startedAt", operator: "gt", value: 1.5 }),
      filter({ column: "tags", operator: "equals", value: "x" }),
      filter({ column: "tags", operator: "contains", value: ["x"] }),
      filter({ column: "name", operator: "in", value: "x" }),
      filter({ column: "name", operator: "in", value: [] }),
      filter({ column: "name", operator: "equals", value: 1 }),
      filter({ column: "name", operator: "exists", value: "yes" }),
      filter({ column: "status", operator: "in", value: ["nope"] }),
      filter({ column: "attributes", operator: "equals", value: "x" }),
      filter({ column: "attributes", key: "", operator: "equals", value: "x" }),
      filter({ column: "attributes", key: "k", operator: "gt", value: "5" }),
      filter({ column: "attributes", key: "k", operator: "contains", value: 5 }),
      filter({ column: "attributes", key: "k", operator: "in", value: 5 }),
      filter({ column: "attributes", key: "k", operator: "equals", value: null }),
      filter({ column: "attributes", key: "k", operator: "equals", value: { a: 1 } }),
      filter({ column: "name", key: "k", operator: "equals", value: "x" }),
      filter({ column: "unknown", operator: "equals", value: "x" }),
      filter({ column: "name", operator: "equals" }),
    ];
    for (const body of bodies) {
      expectError(await client.POST("/logs/traces", { body: body as never }), 400, "VALIDATION_ERROR");
    }
  });

  it("400 INVALID_CURSOR for a malformed cursor and for the cursor of another search", async () => {
    const { client } = use();
    expectError(await client.POST("/logs/traces", { body: { projectId, cursor: "garbage" } }), 400, "INVALID_CURSOR");
    const page = unwrap(await client.POST("/logs/traces", { body: { projectId, limit: 1 } }));
    const cursor = page.pagination.nextCursor ?? "";
    expectStatus(await client.POST("/logs/traces", { body: { projectId, limit: 2, cursor } }), 200);
    const other = await client.POST("/logs/traces", { body: { projectId, limit: 1, status: "success", cursor } });
    expectError(other, 400, "INVALID_CURSOR");
  });

  itAnswersTheErrorMatrix({ access: "read", send, unknown: "project", body: true });
});

describe("searchLogSpans", () => {
  const send: Send = (client, extra) => client.POST("/logs/spans", { body: { projectId }, ...extra });

  it("200: returns spans of every content type, newest first, content as stored and parsed", async () => {
    const reply = await use().client.POST("/logs/spans", { body: { projectId } });
    expectStatus(reply, 200);
    const expected = traces.flatMap((trace) => trace.spanIds).reverse();
    expect(reply.data?.spans.map((span) => span.id)).toEqual(expected);
    const tool = reply.data?.spans[0];
    expect(tool).toMatchObject({
      name: "lookup_order",
      contentType: "Tool",
      logTraceId: traces[2]?.id,
      promptId: null,
      cost: null,
      parsedContent: { type: "Tool", input: '{"orderId":"8812"}', output: '{"status":"shipped"}' },
    });
    expect(JSON.parse(tool?.content ?? "")).toEqual(tool?.parsedContent);
    const llm = reply.data?.spans.find((span) => span.id === traces[0]?.spanIds[0]);
    expect(llm).toMatchObject({
      contentType: "Model",
      promptId,
      cost: 0.000021,
      promptTokens: 12,
      completionTokens: 5,
      totalTokens: 17,
      parsedContent: { type: "Model", provider: "openai", model: "gpt-4o-mini" },
    });
  });

  it("200: applies promptId, model, provider, name (span or trace) and typed filters", async () => {
    const { client } = use();
    const ids = async (body: Omit<Schemas["SearchLogSpansRequest"], "projectId">) =>
      unwrap(await client.POST("/logs/spans", { body: { projectId, ...body } })).spans.map((span) => span.id);
    const [s0, s1, s2] = traces.map((trace) => trace.spanIds);
    expect(await ids({ promptId })).toEqual([s0?.[0]]);
    expect(await ids({ logTraceId: traces[1]?.id as string, sort: "startedAt:asc" })).toEqual(s1);
    expect(await ids({ logTraceId: unknownId("trace") })).toEqual([]);
    expect(await ids({ provider: "ANTHROPIC" })).toEqual([s2?.[0]]);
    expect(await ids({ model: "gpt-4o", sort: "startedAt:asc" })).toEqual([s0?.[0], s1?.[0]]);
    expect(await ids({ name: "checkout", sort: "startedAt:asc" })).toEqual(s1);
    expect(await ids({ name: "lookup", startedAfter: T + 2000 })).toEqual([s2?.[1]]);
    const filters: LogFilter[] = [
      { column: "contentType", operator: "in", value: ["Model", "Tool"] },
      { column: "cost", operator: "gt", value: 0.00001 },
      { column: "startedAt", operator: "lt", value: T + 1000 },
    ];
    expect(await ids({ filters })).toEqual([s0?.[0]]);
    expect(await ids({ filters: [{ column: "cost", operator: "not-equals", value: 0.000021 }], limit: 200 })).toEqual([
      s2?.[1],
      s1?.[1],
      s0?.[1],
    ]);
  });

  it("200: pages with limit and cursor, every span once", async () => {
    const all = [];
    for await (const span of paginate(use().client, "POST", "/logs/spans", { body: { projectId, limit: 4 } })) {
      all.push(span.id);
    }
    expect([...all].sort()).toEqual(traces.flatMap((trace) => trace.spanIds).sort());
  });

  it("400 VALIDATION_ERROR for limit 0 and 201, 21 filters, a bad operator and a wrong value type", async () => {
    const { client } = use();
    const exists = { column: "contentType", operator: "exists", value: true };
    const bodies = [
      { projectId, limit: 0 },
      { projectId, limit: 201 },
      { projectId, filters: Array.from({ length: 21 }, () => exists) },
      { projectId, filters: [{ column: "contentType", operator: "gt", value: "Model" }] },
      { projectId, filters: [{ column: "cost", operator: "gt", value: "cheap" }] },
      { projectId, filters: [{ column: "attributes", key: "k", operator: "in", value: "x" }] },
      { projectId, model: "" },
    ];
    for (const body of bodies) {
      expectError(await client.POST("/logs/spans", { body: body as never }), 400, "VALIDATION_ERROR");
    }
  });

  it("400 VALIDATION_ERROR for each malformed search of the schema, and 200 at its bounds (20 filters, 200 per page)", async () => {
    const { client } = use();
    const filter = (f: Record<string, unknown>) => ({ projectId, filters: [f] });
    const bodies = [
      {},
      { projectId, sort: "startedAt" },
      { projectId, promptId: "short" },
      { projectId, provider: "x".repeat(201) },
      { projectId, startedBefore: "yesterday" },
      {
        projectId,
        filters: Array.from({ length: 21 }, () => ({ column: "status", operator: "equals", value: "success" })),
      },
      filter({ column: "contentType", operator: "in", value: "Model" }),
      filter({ column: "cost", operator: "in", value: [1] }),
      filter({ column: "cost", operator: "exists", value: true }),
      filter({ column: "inputTokens", operator: "gt", value: null }),
      filter({ column: "endedAt", operator: "lt", value: "now" }),
      filter({ column: "status", operator: "equals", value: "Success" }),
      filter({ column: "attributes", key: "k", operator: "exists", value: 1 }),
      filter({ column: "attributes", key: "k", operator: "not-in", value: [] }),
      filter({ column: "tags", operator: "not-in", value: [""] }),
    ];
    for (const body of bodies) {
      expectError(await client.POST("/logs/spans", { body: body as never }), 400, "VALIDATION_ERROR");
    }
    const twenty = Array.from({ length: 20 }, () => ({ column: "contentType", operator: "exists", value: true }));
    expectStatus(await client.POST("/logs/spans", { body: { projectId, filters: twenty, limit: 1 } as never }), 200);
    expectStatus(await client.POST("/logs/spans", { body: { projectId, limit: 200 } }), 200);
  });

  it("400 INVALID_CURSOR for a malformed cursor and for a trace search's cursor", async () => {
    const { client } = use();
    expectError(await client.POST("/logs/spans", { body: { projectId, cursor: "a.b" } }), 400, "INVALID_CURSOR");
    const page = unwrap(await client.POST("/logs/traces", { body: { projectId, limit: 1 } }));
    const cursor = page.pagination.nextCursor ?? "";
    expectError(await client.POST("/logs/spans", { body: { projectId, cursor } }), 400, "INVALID_CURSOR");
  });

  it("404 RESOURCE_NOT_FOUND for an unknown project, an unknown prompt and a prompt of another project", async () => {
    const { client } = use();
    expectError(
      await client.POST("/logs/spans", { body: { projectId: unknownId("project") } }),
      404,
      "RESOURCE_NOT_FOUND",
    );
    expectError(
      await client.POST("/logs/spans", { body: { projectId, promptId: unknownId("prompt") } }),
      404,
      "RESOURCE_NOT_FOUND",
    );
    const foreign = await newPrompt(client, (await newProject(client, `Elsewhere ${run}`)).id);
    expectError(
      await client.POST("/logs/spans", { body: { projectId, promptId: foreign.id } }),
      404,
      "RESOURCE_NOT_FOUND",
    );
  });

  itAnswersTheErrorMatrix({ access: "read", send, body: true });
});

describe("exportLogTraces", () => {
  const send: Send = (client, extra) =>
    client.POST("/logs/traces/export", { body: { projectId }, parseAs: "text", ...extra });

  it("200: every matching trace as NDJSON, each line as the search returns it, then the end line", async () => {
    const { client } = use();
    const searched = unwrap(await client.POST("/logs/traces", { body: { projectId, limit: 200 } }));
    const reply = await send(client, {});
    expectStatus(reply, 200);
    expect(reply.response.headers.get("Content-Type")).toBe("application/x-ndjson");
    const lines = searched.traces.map((trace) => JSON.stringify(trace));
    expect(reply.data).toBe(`${[...lines, JSON.stringify({ end: true, exported: lines.length })].join("\n")}\n`);
    const failed = await client.POST("/logs/traces/export", {
      body: { projectId, status: "failure" },
      parseAs: "text",
    });
    expectStatus(failed, 200);
    const failures = searched.traces
      .filter((trace) => trace.status === "failure")
      .map((trace) => JSON.stringify(trace));
    expect(failed.data).toBe(`${[...failures, JSON.stringify({ end: true, exported: failures.length })].join("\n")}\n`);
  });

  it("400 VALIDATION_ERROR for a page size and a malformed search; 400 INVALID_CURSOR for a span search's cursor", async () => {
    const { client } = use();
    for (const body of [{ projectId, limit: 10 }, {}, { projectId, status: "done" }]) {
      const reply = await client.POST("/logs/traces/export", { body: body as never, parseAs: "text" });
      expectError(reply, 400, "VALIDATION_ERROR");
    }
    const spans = unwrap(await client.POST("/logs/spans", { body: { projectId, limit: 1 } }));
    const foreign = spans.pagination.nextCursor ?? "";
    const reply = await client.POST("/logs/traces/export", { body: { projectId, cursor: foreign }, parseAs: "text" });
    expectError(reply, 400, "INVALID_CURSOR");
  });

  it("404 RESOURCE_NOT_FOUND for an unknown project", async () => {
    const { client } = use();
    const reply = await client.POST("/logs/traces/export", {
      body: { projectId: unknownId("project") },
      parseAs: "text",
    });
    expectError(reply, 404, "RESOURCE_NOT_FOUND");
  });

  itAnswersTheErrorMatrix({ access: "read", send, body: true });
});

describe("exportLogSpans", () => {
  const send: Send = (client, extra) =>
    client.POST("/logs/spans/export", { body: { projectId }, parseAs: "text", ...extra });

  it("200: every matching span as NDJSON, each line as the search returns it, then the end line", async () => {
    const { client } = use();
    const searched = unwrap(await client.POST("/logs/spans", { body: { projectId, limit: 200 } }));
    const reply = await send(client, {});
    expectStatus(reply, 200);
    expect(reply.response.headers.get("Content-Type")).toBe("application/x-ndjson");
    const lines = searched.spans.map((span) => JSON.stringify(span));
    expect(reply.data).toBe(`${[...lines, JSON.stringify({ end: true, exported: lines.length })].join("\n")}\n`);
    const sorted = await client.POST("/logs/spans/export", {
      body: { projectId, model: "claude", sort: "startedAt:asc" },
      parseAs: "text",
    });
    expectStatus(sorted, 200);
    const claude = searched.spans.filter(
      (span) => span.contentType === "Model" && /"model":"claude/.test(span.content),
    );
    expect(sorted.data).toBe(
      `${[...claude.reverse().map((span) => JSON.stringify(span)), JSON.stringify({ end: true, exported: claude.length })].join("\n")}\n`,
    );
  });

  it("400 VALIDATION_ERROR for a page size (an export has none) and a malformed search", async () => {
    const { client } = use();
    for (const body of [{ projectId, limit: 10 }, {}, { projectId, sort: "startedAt" }]) {
      expectError(
        await client.POST("/logs/spans/export", { body: body as never, parseAs: "text" }),
        400,
        "VALIDATION_ERROR",
      );
    }
  });

  it("400 INVALID_CURSOR for a malformed cursor and for a trace search's cursor; a span search's cursor resumes", async () => {
    const { client } = use();
    const bad = await client.POST("/logs/spans/export", { body: { projectId, cursor: "a.b" }, parseAs: "text" });
    expectError(bad, 400, "INVALID_CURSOR");
    const traces = unwrap(await client.POST("/logs/traces", { body: { projectId, limit: 1 } }));
    const foreign = traces.pagination.nextCursor ?? "";
    expectError(
      await client.POST("/logs/spans/export", { body: { projectId, cursor: foreign }, parseAs: "text" }),
      400,
      "INVALID_CURSOR",
    );
    const page = unwrap(await client.POST("/logs/spans", { body: { projectId, limit: 1 } }));
    const rest = await client.POST("/logs/spans/export", {
      body: { projectId, cursor: page.pagination.nextCursor ?? "" },
      parseAs: "text",
    });
    expectStatus(rest, 200);
    const all = unwrap(await client.POST("/logs/spans", { body: { projectId, limit: 200 } })).spans;
    expect(rest.data?.split("\n").filter(Boolean).length).toBe(all.length);
  });

  it("404 RESOURCE_NOT_FOUND for an unknown project and an unknown prompt", async () => {
    const { client } = use();
    for (const body of [{ projectId: unknownId("project") }, { projectId, promptId: unknownId("prompt") }]) {
      expectError(await client.POST("/logs/spans/export", { body, parseAs: "text" }), 404, "RESOURCE_NOT_FOUND");
    }
  });

  itAnswersTheErrorMatrix({ access: "read", send, body: true });
});

const anotherProject = { parent: "project", create: async () => (await newProject(use().client, `Other ${run}`)).id };

describe("getLogTraceTree", () => {
  const send: Send = (client, extra, id = traces[0]?.id as string, parent = projectId) =>
    client.GET("/projects/{projectId}/traces/{traceId}/tree", {
      params: { path: { projectId: parent, traceId: id } },
      ...extra,
    });

  it("200: every span of the trace as a summary, oldest first", async () => {
    const trace = traces[0] as { id: string; spanIds: string[] };
    const reply = await use().client.GET("/projects/{projectId}/traces/{traceId}/tree", {
      params: { path: { projectId, traceId: trace.id } },
    });
    expectStatus(reply, 200);
    expect(reply.data?.traceId).toBe(trace.id);
    expect(reply.data?.spans.map((span) => span.id)).toEqual(trace.spanIds);
    expect(reply.data?.spans[0]).toMatchObject({ name: "llm-call", model: "gpt-4o-mini", provider: "openai" });
  });

  itAnswersTheErrorMatrix({ access: "read", send, unknown: "trace", elsewhere: anotherProject });
});

describe("getLogSpan", () => {
  const send: Send = (client, extra, id = traces[0]?.spanIds[1] as string, parent = projectId) =>
    client.GET("/projects/{projectId}/spans/{spanId}", {
      params: { path: { projectId: parent, spanId: id } },
      ...extra,
    });

  it("200: the span in full, its content parsed", async () => {
    const reply = await use().client.GET("/projects/{projectId}/spans/{spanId}", {
      params: { path: { projectId, spanId: traces[0]?.spanIds[1] as string } },
    });
    expectStatus(reply, 200);
    expect(reply.data).toMatchObject({ id: traces[0]?.spanIds[1], name: "lookup_order", contentType: "Tool" });
    expect(reply.data?.parsedContent).toMatchObject({ type: "Tool", input: '{"orderId":"8812"}' });
  });

  itAnswersTheErrorMatrix({ access: "read", send, unknown: "span", elsewhere: anotherProject });
});

itProvokedEveryDocumentedStatus(use, [
  "searchLogTraces",
  "searchLogSpans",
  "exportLogTraces",
  "exportLogSpans",
  "getLogTraceTree",
  "getLogSpan",
]);
