/**
 * Log writes (POST /logs/trace, PATCH /logs/trace, POST /logs/span) through the client, every response
 * validated against the spec; every documented error provoked.
 */
import { unwrap } from "@pharos/client";
import { beforeAll, describe, expect, it } from "vitest";
import { errorMatrixOf, itProvokedEveryDocumentedStatus, type Send } from "./cases.ts";
import { deploy, newEnvironment, newProject, newPrompt, runTag, type Schemas, unknownId } from "./fixtures.ts";
import { expectError, expectStatus } from "./replies.ts";
import { useTarget } from "./target.ts";

const use = useTarget();
const itAnswersTheErrorMatrix = errorMatrixOf(use, () => projectId);
const run = runTag();

/** An hour ago: every time the scenarios write is in the past. */
const T = Date.now() - 3_600_000;
const MB = 1_048_576;

let projectId: string;
let prompt: Schemas["Prompt"];
let deployment: Schemas["Deployment"];
/** A trace written in beforeAll, with referenceId `req-<run>` and one Model span `span-llm-1`. */
let trace: { id: string; referenceId: string };

let refCounter = 0;
const newRef = (what: string) => `${what}-${run}-${++refCounter}`;

const modelContent = {
  type: "Model" as const,
  provider: "openai",
  model: "gpt-4o-mini",
  input: '{"messages":[{"role":"user","content":[{"modality":"text","value":"Where is my order?"}]}]}',
  output:
    '{"messages":[{"role":"assistant","content":[{"modality":"text","value":"Tomorrow."}]}],"tokenUsage":{"promptTokens":12,"completionTokens":5,"totalTokens":17}}',
  cost: 0.000021,
};
const toolContent = { type: "Tool" as const, input: '{"orderId":"8812"}', output: '{"status":"shipped"}' };
const hugeContent = { type: "Tool" as const, input: JSON.stringify("x".repeat(MB)), output: "{}" };

const span = (overrides: Partial<Schemas["LogSpanInput"]> = {}): Schemas["LogSpanInput"] => ({
  name: "lookup_order",
  status: "success",
  startedAt: T + 100,
  endedAt: T + 200,
  content: toolContent,
  ...overrides,
});

const traceInput = (overrides: Partial<Schemas["LogTraceInput"]> = {}): Schemas["LogTraceInput"] => ({
  name: `support-${run}`,
  status: "success",
  startedAt: T,
  endedAt: T + 1000,
  ...overrides,
});

beforeAll(async () => {
  const { client } = use();
  projectId = (await newProject(client, `Logs writes ${run}`)).id;
  prompt = await newPrompt(client, projectId, { title: `Logged ${run}` });
  deployment = await deploy(client, prompt.id, (await newEnvironment(client, projectId, "production")).id);
  const referenceId = `req-${run}`;
  const created = unwrap(
    await client.POST("/logs/trace", {
      body: {
        projectId,
        trace: traceInput({ referenceId }),
        spans: [span({ referenceId: "span-llm-1", content: modelContent })],
      },
    }),
  );
  trace = { id: created.traceId, referenceId };
});

describe("createLogTrace", () => {
  const send: Send = (client, extra) =>
    client.POST("/logs/trace", { body: { projectId, trace: traceInput(), spans: [span()] }, ...extra });

  it("200: stores a trace with spans of several types, content as an object or JSON text; ids in order", async () => {
    const { client } = use();
    const referenceId = newRef("create");
    const reply = await client.POST("/logs/trace", {
      body: {
        projectId,
        trace: traceInput({
          referenceId,
          sessionId: "sess-1",
          attributes: { "user.plan": "pro", retries: 2, cached: false },
          tags: ["production"],
        }),
        spans: [
          span({
            name: "llm-call",
            referenceId: "llm",
            promptId: prompt.id,
            deploymentId: deployment.id,
            runEvaluation: true,
            content: { ...modelContent, variables: { question: { modality: "text", value: "Where?" } } },
            attributes: { temperature: 0.2 },
            events: ['{"name":"first-token"}'],
          }),
          span({ parentReferenceId: "llm", referenceId: "tool", content: JSON.stringify(toolContent) }),
          span({ name: "rerank", content: { type: "Reranker", input: "{}", output: "[]" } }),
          span({
            name: "chunk",
            parentReferenceId: "llm",
            content: {
              type: "ModelStream",
              provider: "openai",
              model: "gpt-4o-mini",
              input: "{}",
              output: "Hel",
              aggregateOutput: "{}",
            },
          }),
        ],
      },
    });
    expectStatus(reply, 200);
    expect(reply.data?.spanIds).toHaveLength(4);
    const bare = await client.POST("/logs/trace", {
      body: { projectId, trace: { name: "bare", status: "pending", startedAt: T } },
    });
    expectStatus(bare, 200);
    expect(bare.data?.spanIds).toEqual([]);
  });

  it("400 VALIDATION_ERROR for each of the six rules, listed in details, and for invalid content", async () => {
    const { client } = use();
    const breaches: [Schemas["CreateLogTraceRequest"], string][] = [
      [{ projectId, trace: traceInput({ endedAt: T }) }, "trace.endedAt"],
      [{ projectId, trace: traceInput(), spans: [span({ endedAt: T + 100 })] }, "spans.0.endedAt"],
      [{ projectId, trace: traceInput(), spans: [span({ startedAt: T - 1 })] }, "spans.0.startedAt"],
      [
        {
          projectId,
          trace: traceInput({ referenceId: newRef("rule4") }),
          spans: [span({ referenceId: "a" }), span({ referenceId: "a" })],
        },
        "spans.1.referenceId",
      ],
      [
        {
          projectId,
          trace: traceInput({ referenceId: newRef("rule5") }),
          spans: [span({ parentReferenceId: "nobody" })],
        },
        "spans.0.parentReferenceId",
      ],
      [{ projectId, trace: traceInput(), spans: [span({ referenceId: "a" })] }, "trace.referenceId"],
      [
        { projectId, trace: traceInput(), spans: [span({ content: { ...toolContent, input: "not json" } })] },
        "spans.0.content.input",
      ],
      [{ projectId, trace: traceInput(), spans: [span({ content: "{not json" })] }, "spans.0.content"],
    ];
    for (const [body, field] of breaches) {
      const reply = await client.POST("/logs/trace", { body });
      expectError(reply, 400, "VALIDATION_ERROR");
      const details = (reply.error as { error: { details: { field: string }[] } }).error.details;
      expect(details.map((detail) => detail.field)).toEqual([field]);
    }
    expectError(
      await client.POST("/logs/trace", { body: { projectId, trace: traceInput(), spans: [] } }),
      400,
      "VALIDATION_ERROR",
    );
    const other = await newPrompt(client, projectId, { title: "Other" });
    expectError(
      await client.POST("/logs/trace", {
        body: { projectId, trace: traceInput(), spans: [span({ promptId: other.id, deploymentId: deployment.id })] },
      }),
      400,
      "VALIDATION_ERROR",
    );
  });

  it("404 RESOURCE_NOT_FOUND for an unknown project, prompt or deployment", async () => {
    const { client } = use();
    const bodies: Schemas["CreateLogTraceRequest"][] = [
      { projectId: unknownId("project"), trace: traceInput() },
      { projectId, trace: traceInput(), spans: [span({ promptId: unknownId("prompt") })] },
      { projectId, trace: traceInput(), spans: [span({ deploymentId: unknownId("deployment") })] },
    ];
    for (const body of bodies) expectError(await client.POST("/logs/trace", { body }), 404, "RESOURCE_NOT_FOUND");
  });

  it("409 CONFLICT for a trace referenceId already used in the project", async () => {
    const body = { projectId, trace: traceInput({ referenceId: trace.referenceId }) };
    expectError(await use().client.POST("/logs/trace", { body }), 409, "CONFLICT");
  });

  it("413 PAYLOAD_TOO_LARGE for span content over 1 MB", async () => {
    const body = { projectId, trace: traceInput(), spans: [span({ content: hugeContent })] };
    expectError(await use().client.POST("/logs/trace", { body }), 413, "PAYLOAD_TOO_LARGE");
  });

  it("400 VALIDATION_ERROR for each breach of the schema: times out of range or not integers, empty spans, bad statuses, names, ids, attributes, tags and events, unknown fields, a missing projectId or trace, over 1,000 spans", async () => {
    const { client } = use();
    const bodies = [
      { projectId, trace: traceInput({ startedAt: 1_672_511_399_999 }) },
      { projectId, trace: traceInput({ endedAt: 33_229_420_200_001 }) },
      { projectId, trace: traceInput({ startedAt: T + 0.5 }) },
      { projectId, trace: traceInput(), spans: [span({ startedAt: 1_000 })] },
      { projectId, trace: traceInput(), spans: [span({ endedAt: 33_229_420_200_001 })] },
      { projectId, trace: traceInput(), spans: [] },
      { projectId, trace: { ...traceInput(), status: "aborted" } },
      { projectId, trace: traceInput(), spans: [{ ...span(), status: "pending" }] },
      { projectId, trace: traceInput({ name: "" }) },
      { projectId, trace: { ...traceInput(), colour: "red" } },
      { projectId, trace: traceInput(), extra: true },
      { projectId, trace: traceInput(), spans: [span({ promptId: "prompt_short" })] },
      { projectId, trace: { ...traceInput(), attributes: { nested: { a: 1 } } } },
      {
        projectId,
        trace: traceInput({ attributes: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i])) }),
      },
      { projectId, trace: traceInput({ tags: [""] }) },
      { projectId, trace: traceInput(), spans: [{ ...span(), events: [1] }] },
      { trace: traceInput() },
      { projectId },
      { projectId, trace: traceInput(), spans: Array.from({ length: 1001 }, () => span()) },
    ];
    for (const body of bodies) {
      expectError(await client.POST("/logs/trace", { body: body as never }), 400, "VALIDATION_ERROR");
    }
  });

  itAnswersTheErrorMatrix({ access: "ingest", send, body: true });
});

describe("updateLogTrace", () => {
  const send: Send = (client, extra) =>
    client.PATCH("/logs/trace", { body: { projectId, traceId: trace.id, logTrace: { status: "success" } }, ...extra });

  it("200 {success: true}: finishes a pending trace by referenceId and applies attribute and tag operations", async () => {
    const { client } = use();
    const referenceId = newRef("pending");
    const created = unwrap(
      await client.POST("/logs/trace", { body: { projectId, trace: traceInput({ referenceId, status: "pending" }) } }),
    );
    const byReference = await client.PATCH("/logs/trace", {
      body: {
        projectId,
        referenceId,
        logTrace: {
          status: "success",
          endedAt: T + 5000,
          attributes: [
            { operation: "create", key: "feedback", value: "thumbs-up" },
            { operation: "delete", key: "draft" },
          ],
          tags: [{ operation: "create", tag: "reviewed" }],
        },
      },
    });
    expectStatus(byReference, 200);
    expect(byReference.data).toEqual({ success: true });
    expectStatus(
      await client.PATCH("/logs/trace", {
        body: { projectId, traceId: created.traceId, referenceId: null, logTrace: { status: "failure" } },
      }),
      200,
    );
  });

  it("400 VALIDATION_ERROR for both or neither trace names, an empty update, and an end before the start", async () => {
    const { client } = use();
    const bodies = [
      { projectId, logTrace: { status: "success" as const } },
      { projectId, traceId: trace.id, referenceId: trace.referenceId, logTrace: { status: "success" as const } },
      { projectId, traceId: trace.id, logTrace: {} },
      { projectId, traceId: trace.id, logTrace: { endedAt: T - 1 } },
    ];
    for (const body of bodies) expectError(await client.PATCH("/logs/trace", { body }), 400, "VALIDATION_ERROR");
  });

  it("400 VALIDATION_ERROR for each breach of the schema: a bad status or time, empty or over 10 operations, a bad operation, key or value, an unknown field, a missing projectId or logTrace; the trace is left as it was", async () => {
    const { client } = use();
    const referenceId = newRef("unchanged");
    const { traceId } = unwrap(
      await client.POST("/logs/trace", { body: { projectId, trace: traceInput({ referenceId, status: "pending" }) } }),
    );
    const read = async () =>
      unwrap(await client.POST("/logs/traces", { body: { projectId, referenceId } })).traces.map((t) => t.status);
    const eleven = Array.from({ length: 11 }, (_, i) => ({ operation: "create", tag: `t${i}` }));
    const logTraces = [
      {},
      { status: "aborted" },
      { endedAt: 5 },
      { attributes: [] },
      { tags: [] },
      { tags: eleven },
      { attributes: eleven.map((_, i) => ({ operation: "create", key: `k${i}`, value: i })) },
      { attributes: [{ operation: "create", key: "feedback" }] },
      { attributes: [{ operation: "create", key: "", value: 1 }] },
      { attributes: [{ operation: "create", key: "nested", value: { a: 1 } }] },
      { attributes: [{ operation: "rename", key: "a" }] },
      { tags: [{ operation: "create", tag: "" }] },
      { name: "renamed" },
    ];
    const bodies = [
      ...logTraces.map((logTrace) => ({ projectId, traceId, logTrace })),
      { traceId, logTrace: { status: "success" } },
      { projectId, traceId },
      { projectId, traceId, logTrace: { status: "success" }, extra: 1 },
    ];
    for (const body of bodies) {
      expectError(await client.PATCH("/logs/trace", { body: body as never }), 400, "VALIDATION_ERROR");
    }
    expect(await read()).toEqual(["pending"]);
  });

  it("404 RESOURCE_NOT_FOUND for an unknown project and an unknown trace", async () => {
    const { client } = use();
    const logTrace = { status: "success" as const };
    expectError(
      await client.PATCH("/logs/trace", { body: { projectId: unknownId("project"), traceId: trace.id, logTrace } }),
      404,
      "RESOURCE_NOT_FOUND",
    );
    expectError(
      await client.PATCH("/logs/trace", { body: { projectId, traceId: unknownId("trace"), logTrace } }),
      404,
      "RESOURCE_NOT_FOUND",
    );
    expectError(
      await client.PATCH("/logs/trace", { body: { projectId, referenceId: newRef("nobody"), logTrace } }),
      404,
      "RESOURCE_NOT_FOUND",
    );
  });

  itAnswersTheErrorMatrix({ access: "ingest", send, body: true });
});

describe("createLogSpan", () => {
  const send: Send = (client, extra) =>
    client.POST("/logs/span", { body: { projectId, span: { ...span(), traceId: trace.id } }, ...extra });

  it("200: adds spans by traceId and by traceReferenceId", async () => {
    const { client } = use();
    const byId = await client.POST("/logs/span", {
      body: { projectId, span: { ...span({ content: modelContent, promptId: prompt.id }), traceId: trace.id } },
    });
    expectStatus(byId, 200);
    expect(byId.data?.spanId).toMatch(/^span_/);
    const byReference = await client.POST("/logs/span", {
      body: {
        projectId,
        span: {
          ...span({ content: JSON.stringify(toolContent), referenceId: newRef("span") }),
          traceReferenceId: trace.referenceId,
        },
      },
    });
    expectStatus(byReference, 200);
  });

  it("400 VALIDATION_ERROR without a trace name, for names of two traces, an end before the start, bad content", async () => {
    const { client } = use();
    const other = unwrap(
      await client.POST("/logs/trace", { body: { projectId, trace: traceInput({ referenceId: newRef("other") }) } }),
    );
    const spans: Schemas["CreateLogSpanInput"][] = [
      span(),
      { ...span(), traceId: other.traceId, traceReferenceId: trace.referenceId },
      { ...span({ endedAt: T + 100 }), traceId: trace.id },
      { ...span({ content: { ...toolContent, output: "{" } }), traceId: trace.id },
    ];
    for (const body of spans) {
      expectError(await client.POST("/logs/span", { body: { projectId, span: body } }), 400, "VALIDATION_ERROR");
    }
  });

  it("404 RESOURCE_NOT_FOUND for an unknown trace, project or prompt", async () => {
    const { client } = use();
    const bodies: Schemas["CreateLogSpanRequest"][] = [
      { projectId, span: { ...span(), traceId: unknownId("trace") } },
      { projectId, span: { ...span(), traceReferenceId: newRef("nobody") } },
      { projectId: unknownId("project"), span: { ...span(), traceId: trace.id } },
      { projectId, span: { ...span({ promptId: unknownId("prompt") }), traceId: trace.id } },
    ];
    for (const body of bodies) expectError(await client.POST("/logs/span", { body }), 404, "RESOURCE_NOT_FOUND");
  });

  it("409 CONFLICT for a referenceId already used by a span of the trace", async () => {
    const body = { projectId, span: { ...span({ referenceId: "span-llm-1" }), traceId: trace.id } };
    expectError(await use().client.POST("/logs/span", { body }), 409, "CONFLICT");
  });

  it("413 PAYLOAD_TOO_LARGE for span content over 1 MB", async () => {
    const body = { projectId, span: { ...span({ content: hugeContent }), traceId: trace.id } };
    expectError(await use().client.POST("/logs/span", { body }), 413, "PAYLOAD_TOO_LARGE");
  });

  itAnswersTheErrorMatrix({ access: "ingest", send, body: true });
});

itProvokedEveryDocumentedStatus(use, ["createLogTrace", "updateLogTrace", "createLogSpan"]);
