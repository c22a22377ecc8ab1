import { expect, it } from "vitest";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore, type Harness } from "../../testing/harness.ts";
import { insertSpan, insertTrace, newProject, T0 } from "../../testing/log-search-fixtures.ts";

type Body = Record<string, unknown>;

const search = (h: Harness, body: Body, key?: string) => h.request("POST", "/logs/spans", { body, key });

async function ids(h: Harness, body: Body): Promise<string[]> {
  const reply = await search(h, { limit: 200, ...body });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.spans.map((span: { id: string }) => span.id);
}

async function newPrompt(h: Harness, projectId: string): Promise<string> {
  const reply = await h.request("POST", "/prompts", { body: { projectId } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.id;
}

const model = (provider: string, name: string, cost?: number) => ({
  type: "Model",
  provider,
  model: name,
  input: '{"messages":[]}',
  output: '{"messages":[],"tokenUsage":{"promptTokens":12,"completionTokens":5,"totalTokens":17}}',
  ...(cost !== undefined && { cost }),
});

describeEachStore("searchLogSpans", (use) => {
  it("returns spans of every content type (200), newest first, with content as stored and parsed", async () => {
    const h = use();
    const projectId = await newProject(h);
    const promptId = await newPrompt(h, projectId);
    const traceId = await insertTrace(h, { projectId, name: "support-chat" });
    const content = model("openai", "gpt-4o-mini", 0.000021);
    const llm = await insertSpan(h, traceId, {
      name: "llm-call",
      content,
      startedAt: T0 + 100,
      endedAt: T0 + 1300,
      promptId,
      referenceId: "span-llm-1",
      parentReferenceId: "root",
      sessionId: "sess-42",
      cost: 0.000021,
      promptTokens: 12,
      completionTokens: 5,
      totalTokens: 17,
      attributes: { "user.plan": "pro" },
      tags: ["production"],
      events: ['{"name":"retry"}'],
    });
    const tool = await insertSpan(h, traceId, {
      name: "lookup",
      content: { type: "Tool", input: '{"id":1}', output: "{}" },
      startedAt: T0 + 50,
      status: "failure",
    });
    const custom = await insertSpan(h, traceId, {
      content: { type: "VectorSearch", input: "{}", output: "{}", index: "docs" },
      startedAt: T0 + 10,
    });

    const reply = await search(h, { projectId });
    expect(reply.status).toBe(200);
    expect(reply.body.pagination).toEqual({ limit: 50, returned: 3, hasMore: false, nextCursor: null });
    expect(reply.body.spans.map((s: { id: string }) => s.id)).toEqual([llm, tool, custom]);
    expect(reply.body.spans[0]).toEqual({
      id: llm,
      name: "llm-call",
      status: "success",
      contentType: "Model",
      startedAt: T0 + 100,
      endedAt: T0 + 1300,
      latency: 1200,
      logTraceId: traceId,
      promptId,
      deploymentId: null,
      referenceId: "span-llm-1",
      parentReferenceId: "root",
      sessionId: "sess-42",
      cost: 0.000021,
      promptTokens: 12,
      completionTokens: 5,
      totalTokens: 17,
      content: JSON.stringify(content),
      parsedContent: content,
      attributes: { "user.plan": "pro" },
      tags: ["production"],
      events: ['{"name":"retry"}'],
      scores: [],
      createdAt: T0 + 1301,
      updatedAt: T0 + 1301,
    });
    expect(reply.body.spans[1]).toMatchObject({
      contentType: "Tool",
      status: "failure",
      promptId: null,
      referenceId: null,
      sessionId: null,
      cost: null,
      promptTokens: null,
      completionTokens: null,
      totalTokens: null,
      attributes: {},
      tags: [],
      events: [],
    });
    expect(reply.body.spans[2]).toMatchObject({
      contentType: "VectorSearch",
      parsedContent: { type: "VectorSearch", input: "{}", output: "{}", index: "docs" },
    });
  });

  it("applies promptId (a prompt of the project, otherwise 404), model and provider substrings and the time range", async () => {
    const h = use();
    const projectId = await newProject(h);
    const promptId = await newPrompt(h, projectId);
    const traceId = await insertTrace(h, { projectId });
    const a = await insertSpan(h, traceId, { content: model("OpenAI", "gpt-4o-mini"), promptId, startedAt: T0 });
    const b = await insertSpan(h, traceId, { content: model("anthropic", "claude-3"), startedAt: T0 + 1 });
    const c = await insertSpan(h, traceId, {
      content: { type: "ModelStream", provider: "openai", model: "GPT-4.1", input: "{}", output: "{}" },
      startedAt: T0 + 2,
    });
    const d = await insertSpan(h, traceId, { content: { type: "Tool", input: "{}", output: "{}" }, startedAt: T0 + 3 });

    expect(await ids(h, { projectId })).toEqual([d, c, b, a]);
    expect(await ids(h, { projectId, promptId })).toEqual([a]);
    expect(await ids(h, { projectId, provider: "openai" })).toEqual([c, a]);
    expect(await ids(h, { projectId, provider: "THROP" })).toEqual([b]);
    expect(await ids(h, { projectId, model: "gpt-4" })).toEqual([c, a]);
    expect(await ids(h, { projectId, model: "4o", provider: "open" })).toEqual([a]);
    expect(await ids(h, { projectId, model: "_" })).toEqual([]);
    expect(await ids(h, { projectId, startedAfter: T0 + 1, startedBefore: T0 + 2 })).toEqual([c, b]);

    await expectError(await search(h, { projectId, promptId: `prompt_${"0".repeat(26)}` }), 404, "RESOURCE_NOT_FOUND");
    const elsewhere = await newPrompt(h, h.projectId);
    await expectError(await search(h, { projectId, promptId: elsewhere }), 404, "RESOURCE_NOT_FOUND");
  });

  it("matches name against the span's name or its trace's name; status, referenceId and sessionId against the span", async () => {
    const h = use();
    const projectId = await newProject(h);
    const checkout = await insertTrace(h, { projectId, name: "Checkout-Flow", sessionId: "trace-session" });
    const other = await insertTrace(h, { projectId, name: "other" });
    const a = await insertSpan(h, checkout, { name: "llm", startedAt: T0, sessionId: "s-1", referenceId: "r-1" });
    const b = await insertSpan(h, other, { name: "CHECKOUT step", startedAt: T0 + 1, status: "failure" });
    const c = await insertSpan(h, other, { name: "tool", startedAt: T0 + 2, status: "cancelled" });

    expect(await ids(h, { projectId, name: "checkout" })).toEqual([b, a]);
    expect(await ids(h, { projectId, name: "FLOW" })).toEqual([a]);
    expect(await ids(h, { projectId, name: "tool" })).toEqual([c]);
    expect(await ids(h, { projectId, status: "failure" })).toEqual([b]);
    expect(await ids(h, { projectId, status: "cancelled" })).toEqual([c]);
    expect(await ids(h, { projectId, sessionId: "s-1" })).toEqual([a]);
    expect(await ids(h, { projectId, sessionId: "trace-session" })).toEqual([]);
    expect(await ids(h, { projectId, referenceId: "r-1" })).toEqual([a]);
    // The `name` filter column is the span's name only.
    expect(await ids(h, { projectId, filters: [{ column: "name", operator: "contains", value: "flow" }] })).toEqual([]);
  });

  it("logTraceId returns the spans of one trace only, paged; another project's trace or none matches nothing", async () => {
    const h = use();
    const projectId = await newProject(h);
    const otherProjectId = await newProject(h);
    const trace = await insertTrace(h, { projectId, name: "one" });
    const other = await insertTrace(h, { projectId, name: "two" });
    const elsewhere = await insertTrace(h, { projectId: otherProjectId, name: "three" });
    const own = [];
    for (let i = 0; i < 3; i++) own.push(await insertSpan(h, trace, { name: `own-${i}`, startedAt: T0 + i }));
    await insertSpan(h, other, { name: "not-own", startedAt: T0 + 1 });
    await insertSpan(h, elsewhere, { name: "elsewhere", startedAt: T0 + 1 });

    expect(await ids(h, { projectId, logTraceId: trace })).toEqual([...own].reverse());
    const first = await search(h, { projectId, logTraceId: trace, limit: 2, sort: "startedAt:asc" });
    expect(first.body.spans.map((span: { id: string }) => span.id)).toEqual(own.slice(0, 2));
    const cursor = first.body.pagination.nextCursor;
    const second = await search(h, { projectId, logTraceId: trace, limit: 2, sort: "startedAt:asc", cursor });
    expect(second.body.spans.map((span: { id: string }) => span.id)).toEqual(own.slice(2));
    expect(await ids(h, { projectId, logTraceId: elsewhere })).toEqual([]);
    expectError(await search(h, { projectId, logTraceId: "trace_1" }), 400, "VALIDATION_ERROR");
  });

  it("filters contentType (built-in and custom) and the span's text columns", async () => {
    const h = use();
    const projectId = await newProject(h);
    const traceId = await insertTrace(h, { projectId });
    const m = await insertSpan(h, traceId, { content: model("openai", "gpt"), startedAt: T0 });
    const t = await insertSpan(h, traceId, { content: { type: "Tool", input: "{}", output: "{}" }, startedAt: T0 + 1 });
    const v = await insertSpan(h, traceId, {
      content: { type: "VectorSearch", input: "{}", output: "{}" },
      startedAt: T0 + 2,
      referenceId: "ref",
    });
    const f = (column: string, operator: string, value: unknown) =>
      ids(h, { projectId, filters: [{ column, operator, value }] });
    expect(await f("contentType", "equals", "Model")).toEqual([m]);
    expect(await f("contentType", "equals", "model")).toEqual([]);
    expect(await f("contentType", "not-equals", "Model")).toEqual([v, t]);
    expect(await f("contentType", "contains", "SEARCH")).toEqual([v]);
    expect(await f("contentType", "not-contains", "o")).toEqual([]);
    expect(await f("contentType", "in", ["Tool", "VectorSearch"])).toEqual([v, t]);
    expect(await f("contentType", "not-in", ["Tool", "VectorSearch"])).toEqual([m]);
    expect(await f("contentType", "exists", true)).toEqual([v, t, m]);
    expect(await f("contentType", "exists", false)).toEqual([]);
    expect(await f("referenceId", "exists", true)).toEqual([v]);
    expect(await f("referenceId", "not-in", ["ref"])).toEqual([t, m]);
  });

  it("filters cost and tokens of Model spans; a null column matches only not-equals", async () => {
    const h = use();
    const projectId = await newProject(h);
    const traceId = await insertTrace(h, { projectId });
    const cheap = await insertSpan(h, traceId, {
      content: model("openai", "gpt", 0.001),
      startedAt: T0,
      endedAt: T0 + 200,
      cost: 0.001,
      promptTokens: 10,
      completionTokens: 5,
      totalTokens: 15,
    });
    const dear = await insertSpan(h, traceId, {
      content: model("openai", "gpt", 0.5),
      startedAt: T0 + 1,
      endedAt: T0 + 3001,
      cost: 0.5,
      promptTokens: 100,
      completionTokens: 50,
      totalTokens: 150,
    });
    const tool = await insertSpan(h, traceId, {
      content: { type: "Tool", input: "{}", output: "{}" },
      startedAt: T0 + 2,
    });
    const f = (column: string, operator: string, value: unknown) =>
      ids(h, { projectId, filters: [{ column, operator, value }] });

    expect(await f("cost", "gt", 0.01)).toEqual([dear]);
    expect(await f("cost", "gte", 0)).toEqual([dear, cheap]);
    expect(await f("cost", "lt", 1)).toEqual([dear, cheap]);
    expect(await f("cost", "equals", 0.5)).toEqual([dear]);
    expect(await f("cost", "not-equals", 0.5)).toEqual([tool, cheap]);
    expect(await f("inputTokens", "equals", 10)).toEqual([cheap]);
    expect(await f("inputTokens", "lte", 100)).toEqual([dear, cheap]);
    expect(await f("outputTokens", "gt", 5)).toEqual([dear]);
    expect(await f("outputTokens", "not-equals", 5)).toEqual([tool, dear]);
    expect(await f("totalTokens", "gte", 15.5)).toEqual([dear]);
    expect(await f("totalTokens", "lt", 1000)).toEqual([dear, cheap]);
    expect(await f("latency", "gt", 100)).toEqual([dear, cheap]);
    expect(await f("latency", "lte", 10)).toEqual([tool]);
    expect(await f("endedAt", "gte", T0 + 3001)).toEqual([dear]);
  });

  it("filters the span's own attributes and tags, not its trace's", async () => {
    const h = use();
    const projectId = await newProject(h);
    const traceId = await insertTrace(h, { projectId, attributes: { plan: "pro" }, tags: ["production"] });
    const tagged = await insertSpan(h, traceId, {
      startedAt: T0,
      attributes: { plan: "team", n: 3 },
      tags: ["cached"],
    });
    const bare = await insertSpan(h, traceId, { startedAt: T0 + 1 });
    const f = (filter: Body) => ids(h, { projectId, filters: [filter] });
    expect(await f({ column: "attributes", key: "plan", operator: "equals", value: "pro" })).toEqual([]);
    expect(await f({ column: "attributes", key: "plan", operator: "equals", value: "team" })).toEqual([tagged]);
    expect(await f({ column: "attributes", key: "plan", operator: "not-equals", value: "team" })).toEqual([bare]);
    expect(await f({ column: "attributes", key: "n", operator: "gte", value: 3 })).toEqual([tagged]);
    expect(await f({ column: "attributes", key: "n", operator: "exists", value: false })).toEqual([bare]);
    expect(await f({ column: "attributes", key: "plan", operator: "in", value: ["pro", "team"] })).toEqual([tagged]);
    expect(await f({ column: "tags", operator: "contains", value: "production" })).toEqual([]);
    expect(await f({ column: "tags", operator: "contains", value: "cached" })).toEqual([tagged]);
    expect(await f({ column: "tags", operator: "not-in", value: ["cached"] })).toEqual([bare]);
    // …and the trace search sees the trace's.
    const traces = await h.request("POST", "/logs/traces", {
      body: { projectId, filters: [{ column: "tags", operator: "contains", value: "cached" }] },
    });
    expect(traces.body.traces).toEqual([]);
  });

  it("pages in either order across ties with a cursor bound to the search and the operation", async () => {
    const h = use();
    const projectId = await newProject(h);
    const traceId = await insertTrace(h, { projectId });
    for (let i = 0; i < 9; i++) await insertSpan(h, traceId, { startedAt: T0 + (i % 2) });
    for (const sort of ["startedAt:asc", "startedAt:desc"]) {
      const expected = await ids(h, { projectId, sort });
      const walked: string[] = [];
      let cursor: string | undefined;
      do {
        const reply = await search(h, { projectId, sort, limit: 4, ...(cursor && { cursor }) });
        expect(reply.status).toBe(200);
        walked.push(...reply.body.spans.map((s: { id: string }) => s.id));
        cursor = reply.body.pagination.nextCursor ?? undefined;
      } while (cursor);
      expect(walked).toEqual(expected);
      expect(new Set(walked).size).toBe(9);
    }
    const page = await search(h, { projectId, limit: 2 });
    const cursor: string = page.body.pagination.nextCursor;
    await expectError(await search(h, { projectId, limit: 2, model: "gpt", cursor }), 400, "INVALID_CURSOR");
    await expectError(
      await search(h, { projectId, cursor, filters: [{ column: "contentType", operator: "equals", value: "Other" }] }),
      400,
      "INVALID_CURSOR",
    );
    // A trace search's cursor, however valid there, is not a cursor of this operation.
    await insertTrace(h, { projectId, startedAt: T0 + 5 });
    const traces = await h.request("POST", "/logs/traces", { body: { projectId, limit: 1 } });
    const traceCursor: string = traces.body.pagination.nextCursor;
    expect(traceCursor).toEqual(expect.any(String));
    await expectError(await search(h, { projectId, cursor: traceCursor }), 400, "INVALID_CURSOR");
    await expectError(await search(h, { projectId, cursor: "garbage" }), 400, "INVALID_CURSOR");
  });
});
