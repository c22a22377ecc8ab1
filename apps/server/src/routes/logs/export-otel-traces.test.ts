import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { createOpenAI } from "@ai-sdk/openai";
import { OpenAIInstrumentation as OpenInferenceOpenAI } from "@arizeai/openinference-instrumentation-openai";
import { createAdaptorServer } from "@hono/node-server";
import { context, propagation, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, NodeTracerProvider, type SpanExporter } from "@opentelemetry/sdk-trace-node";
import { decodeTraceResponse, encodeTraceRequest, type OtlpValue, readTraceRequestJson } from "@pharos/otlp";
import { OpenAIInstrumentation as OpenLLMetryOpenAI } from "@traceloop/instrumentation-openai";
import { generateText, streamText } from "ai";
import OpenAI from "openai";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type FakeProvider, startFakeProvider } from "../../testing/fake-provider.ts";
import { describeEachStore, type Harness } from "../../testing/harness.ts";
import { countRows, newProject } from "../../testing/log-write-fixtures.ts";
import { hexId, jsonRequest, keyValues, otlpFixture, PAIR, sendOtlp } from "../../testing/otel-fixtures.ts";

/** The stored trace with `referenceId` in the project, with its spans by referenceId. */
async function storedOtelTrace(h: Harness, referenceId: string, projectId = h.projectId) {
  const trace = await h.store.db
    .selectFrom("logTraces")
    .selectAll()
    .where("projectId", "=", projectId)
    .where("referenceId", "=", referenceId)
    .executeTakeFirst();
  if (!trace) return undefined;
  const spans = await h.store.db.selectFrom("logSpans").selectAll().where("traceId", "=", trace.id).execute();
  return {
    ...trace,
    spanIds: JSON.parse(trace.spanIds) as string[],
    spans: Object.fromEntries(
      spans.map((span) => [
        span.referenceId,
        {
          ...span,
          attributes: JSON.parse(span.attributes),
          events: (JSON.parse(span.events) as string[]).map((event) => JSON.parse(event)),
          parsedContent: JSON.parse(span.content),
        },
      ]),
    ),
  };
}

/** The spans of a project, through POST /logs/spans. */
async function searchSpans(h: Harness, projectId: string): Promise<any[]> {
  const reply = await h.request("POST", "/logs/spans", { body: { projectId, limit: 200 } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.spans;
}

const GPT_4O_MINI_COST = (12 * 0.15 + 7 * 0.6) / 1_000_000;

describeEachStore("exportOtelTraces", (use) => {
  it.each([
    ["protobuf", false],
    ["protobuf", true],
  ] as const)(
    "stores the captured %s pair (gzip: %s) sent child first: one trace, the root sets it",
    async (_, gzip) => {
      const h = use();
      const projectId = await newProject(h);
      const { traceId, parent, child } = PAIR.protobuf;
      const first = await sendOtlp(h, { body: otlpFixture("otlp-proto-child.pb"), gzip, projectId });
      expect(first.status, String(first.body)).toBe(200);
      expect(first.headers.get("Content-Type")).toBe("application/x-protobuf");
      expect(decodeTraceResponse(first.body)).toEqual({});
      const pending = await storedOtelTrace(h, traceId, projectId);
      expect(pending).toMatchObject({ status: "pending", name: "tool lookup" });

      const second = await sendOtlp(h, { body: otlpFixture("otlp-proto-parent.pb"), gzip, projectId });
      expect(second.status).toBe(200);
      const trace = await storedOtelTrace(h, traceId, projectId);
      expect(trace).toMatchObject({
        name: "chat gpt-4o-mini",
        status: "success",
        totalInputTokens: 12,
        totalOutputTokens: 7,
      });
      expect(trace?.totalCost).toBeCloseTo(GPT_4O_MINI_COST, 15);
      expect(trace?.spanIds).toHaveLength(2);
      const root = trace?.spans[parent];
      expect(root).toMatchObject({
        contentType: "Model",
        provider: "openai",
        model: "gpt-4o-mini",
        parentReferenceId: null,
        promptTokens: 12,
        completionTokens: 7,
        totalTokens: 19,
      });
      expect(trace?.startedAt).toBe(root?.startedAt);
      expect(trace?.endedAt).toBe(root?.endedAt);
      expect(root?.attributes).toMatchObject({
        "pharos.prompt.name": "greeting",
        "pharos.prompt.version": 3,
        "gen_ai.request.temperature": 0.2,
        "llm.stream": false,
        tags: '["a","b"]',
        "otel.resource.service.name": "pharos-probe",
        "otel.scope.name": "probe-tracer",
        "otel.span.kind": "client",
      });
      expect(root?.attributes).not.toHaveProperty("gen_ai.usage.input_tokens");
      const tool = trace?.spans[child];
      expect(tool).toMatchObject({ contentType: "Other", status: "failure", parentReferenceId: parent });
      expect(tool?.attributes).toMatchObject({ "tool.name": "lookup", "otel.status.message": "boom" });
      expect(tool?.events).toHaveLength(1);
    },
  );

  it.each([false, true])(
    "stores the captured JSON pair (gzip: %s) sent parent first and answers JSON",
    async (gzip) => {
      const h = use();
      const projectId = await newProject(h);
      const { traceId, parent, child } = PAIR.json;
      for (const name of ["otlp-json-parent.json", "otlp-json-child.json"]) {
        const reply = await sendOtlp(h, { body: otlpFixture(name).toString("utf8"), gzip, projectId });
        expect(reply.status, JSON.stringify(reply.body)).toBe(200);
        expect(reply.body).toEqual({});
      }
      const trace = await storedOtelTrace(h, traceId, projectId);
      expect(trace).toMatchObject({ name: "chat gpt-4o-mini", status: "success", totalInputTokens: 12 });
      expect(trace?.spans[child]).toMatchObject({ parentReferenceId: parent, status: "failure" });
    },
  );

  it("counts a span sent again once", async () => {
    const h = use();
    const projectId = await newProject(h);
    for (let i = 0; i < 2; i += 1) {
      expect((await sendOtlp(h, { body: otlpFixture("otlp-proto-parent.pb"), projectId })).status).toBe(200);
    }
    expect(await countRows(h, "logSpans", projectId)).toBe(1);
    const trace = await storedOtelTrace(h, PAIR.protobuf.traceId, projectId);
    expect(trace?.totalInputTokens).toBe(12);
  });

  it("answers 400 naming how to set the project when neither header nor attribute names it", async () => {
    const h = use();
    const body = JSON.stringify(jsonRequest([{ traceId: hexId(16), spanId: hexId(8) }]));
    const reply = await sendOtlp(h, { body, projectId: null });
    expect(reply.status).toBe(400);
    expect(reply.body.error.message).toContain("x-pharos-project-id");
    expect(reply.body.error.message).toContain("pharos.project.id");
  });
});

const messages = (content: string) => JSON.parse(content) as { input: string; output: string };

describeEachStore("exportOtelTraces: conventions of real instrumentations", (use) => {
  it("maps the AI SDK's generateText: the outer span a Function, the inner doGenerate the Model call", async () => {
    const h = use();
    const projectId = await newProject(h);
    for (const name of ["genai/aisdk-generateText.doGenerate.pb", "genai/aisdk-generateText.pb"]) {
      expect((await sendOtlp(h, { body: otlpFixture(name), projectId })).status).toBe(200);
    }
    const trace = await storedOtelTrace(h, "792be93ea09e104bb51342d9779e90c4", projectId);
    expect(trace).toMatchObject({
      name: "ai.generateText",
      status: "success",
      totalInputTokens: 11,
      totalOutputTokens: 5,
    });
    const model = trace?.spans["56996f284cbd88db"];
    expect(model).toMatchObject({ contentType: "Model", provider: "openai", model: "gpt-4o-mini", totalTokens: 16 });
    expect(model?.parentReferenceId).toBe("1a65d55cfc24d235");
    const { input, output } = messages(model?.content as string);
    expect(JSON.parse(input).messages).toEqual([
      { role: "system", content: [{ modality: "text", value: "You are terse." }] },
      { role: "user", content: [{ modality: "text", value: "Say hi" }] },
    ]);
    expect(JSON.parse(output)).toEqual({
      messages: [{ role: "assistant", content: [{ modality: "text", value: "Hello from fake model" }] }],
      tokenUsage: { promptTokens: 11, completionTokens: 5, totalTokens: 16 },
    });
    expect(model?.attributes).toMatchObject({ "ai.settings.temperature": 0.2, "ai.response.finishReason": "stop" });
    expect(model?.cost).toBeCloseTo((11 * 0.15 + 5 * 0.6) / 1_000_000, 15);
    const outer = trace?.spans["1a65d55cfc24d235"];
    expect(outer).toMatchObject({ contentType: "Function", cost: null });
    expect(JSON.parse(messages(outer?.content as string).output)).toBe("Hello from fake model");
  });

  it("maps the AI SDK's streamText doStream span as a Model call of its provider", async () => {
    const h = use();
    const projectId = await newProject(h);
    expect((await sendOtlp(h, { body: otlpFixture("genai/aisdk-streamText.doStream.pb"), projectId })).status).toBe(
      200,
    );
    const trace = await storedOtelTrace(h, "6b450c2759008e06038e0c635b297403", projectId);
    expect(trace).toMatchObject({ status: "pending", name: "ai.streamText.doStream" });
    const model = trace?.spans["96e4ff9c46dd1516"];
    expect(model).toMatchObject({ contentType: "Model", provider: "pharos-fake", promptTokens: 11, cost: null });
    expect(model?.events).toHaveLength(2);
  });

  it.each([
    ["genai/openinference-chat.pb", "e2f7f10c605aaabb3bbeeb724c551a2f", "bbca9c98df66d2e2", 11],
    ["genai/openinference-chat-stream.pb", "144c32e09556dba51c3daf3abba22265", "37836c9a53a820a5", null],
  ] as const)(
    "maps OpenInference's flattened messages and token counts (%s)",
    async (name, traceId, spanId, tokens) => {
      const h = use();
      const projectId = await newProject(h);
      expect((await sendOtlp(h, { body: otlpFixture(name), projectId })).status).toBe(200);
      const span = (await storedOtelTrace(h, traceId, projectId))?.spans[spanId];
      expect(span).toMatchObject({
        contentType: "Model",
        provider: "openai",
        model: "gpt-4o-mini",
        promptTokens: tokens,
      });
      const { input, output } = messages(span?.content as string);
      expect(JSON.parse(input).messages.at(-1)).toMatchObject({ role: "user" });
      expect(JSON.parse(output).messages[0]).toMatchObject({ role: "assistant" });
      expect(JSON.parse(output).messages[0].content[0].value).toMatch(/^Hello from fake model/);
      expect(span?.attributes).toMatchObject({ "llm.finish_reason": "stop", "input.mime_type": "application/json" });
      expect(Object.keys(span?.attributes ?? {}).filter((key) => key.startsWith("llm.input_messages"))).toEqual([]);
    },
  );

  it("maps the current GenAI messages, older prompt/completion attributes and OpenLLMetry's kinds", async () => {
    const h = use();
    const traceId = hexId(16);
    const [current, older, tool, workflow, unknown] = [hexId(8), hexId(8), hexId(8), hexId(8), hexId(8)];
    const body = jsonRequest([
      {
        traceId,
        spanId: current,
        parentSpanId: workflow,
        attributes: {
          "gen_ai.operation.name": "chat",
          "gen_ai.provider.name": "anthropic",
          "gen_ai.request.model": "claude-sonnet-4-5",
          "gen_ai.system_instructions": JSON.stringify([{ type: "text", content: "Be brief." }]),
          "gen_ai.input.messages": JSON.stringify([{ role: "user", parts: [{ type: "text", content: "Hi" }] }]),
          "gen_ai.output.messages": JSON.stringify([
            {
              role: "assistant",
              parts: [{ type: "tool_call", id: "call_1", name: "lookup", arguments: { q: 1 } }],
              finish_reason: "tool_call",
            },
          ]),
          "gen_ai.usage.input_tokens": 1000,
          "gen_ai.usage.output_tokens": 100,
        },
      },
      {
        traceId,
        spanId: older,
        parentSpanId: workflow,
        attributes: {
          "gen_ai.system": "openai",
          "gen_ai.request.model": "gpt-4o",
          "llm.request.type": "chat",
          "gen_ai.prompt.0.role": "user",
          "gen_ai.prompt.0.content": "Hello",
          "gen_ai.completion.0.role": "assistant",
          "gen_ai.completion.0.content": "Hi there",
          "gen_ai.usage.prompt_tokens": 3,
          "gen_ai.usage.completion_tokens": 2,
          "gen_ai.usage.cost": 0.5,
        },
      },
      {
        traceId,
        spanId: tool,
        parentSpanId: workflow,
        attributes: {
          "traceloop.span.kind": "tool",
          "traceloop.entity.input": '{"q":1}',
          "traceloop.entity.output": "found",
        },
      },
      { traceId, spanId: workflow, name: "agent", attributes: { "traceloop.span.kind": "workflow" } },
      { traceId, spanId: unknown, parentSpanId: workflow, attributes: { "my.custom": [1, { a: true }] } },
    ]);
    expect((await sendOtlp(h, { body: JSON.stringify(body) })).status).toBe(200);
    const trace = await storedOtelTrace(h, traceId);
    const currentSpan = trace?.spans[current];
    expect(currentSpan).toMatchObject({ contentType: "Model", provider: "anthropic", promptTokens: 1000 });
    expect(currentSpan?.cost).toBeCloseTo((1000 * 3 + 100 * 15) / 1_000_000, 15);
    const currentContent = messages(currentSpan?.content as string);
    expect(JSON.parse(currentContent.input).messages).toEqual([
      { role: "system", content: [{ modality: "text", value: "Be brief." }] },
      { role: "user", content: [{ modality: "text", value: "Hi" }] },
    ]);
    expect(JSON.parse(currentContent.output).messages[0].content[0]).toEqual({
      modality: "tool-call",
      index: 0,
      id: "call_1",
      name: "lookup",
      arguments: '{"q":1}',
    });
    const olderSpan = trace?.spans[older];
    expect(olderSpan).toMatchObject({ contentType: "Model", provider: "openai", model: "gpt-4o", cost: 0.5 });
    expect(JSON.parse(messages(olderSpan?.content as string).output).messages[0].content[0].value).toBe("Hi there");
    expect(olderSpan?.attributes).toMatchObject({ "llm.request.type": "chat" });
    expect(trace?.spans[tool]).toMatchObject({ contentType: "Tool" });
    expect(messages(trace?.spans[tool]?.content as string)).toMatchObject({ input: '{"q":1}', output: '"found"' });
    expect(trace?.spans[workflow]).toMatchObject({ contentType: "Function" });
    expect(trace?.spans[unknown]).toMatchObject({ contentType: "Other" });
    expect(trace?.spans[unknown]?.attributes).toMatchObject({ "my.custom": '[1,{"a":true}]' });
    expect(trace).toMatchObject({ name: "agent", totalInputTokens: 1003, totalOutputTokens: 102 });
    expect(trace?.totalCost).toBeCloseTo(0.5 + (1000 * 3 + 100 * 15) / 1_000_000, 12);
  });
});

describeEachStore("exportOtelTraces: messages in events and retrieval documents", (use) => {
  const event = (name: string, attributes: Record<string, unknown>) => ({
    timeUnixNano: "1732190400150000000",
    name,
    attributes: keyValues(attributes),
  });

  it("reads a Model span's messages from GenAI message events and OpenLLMetry's prompt events; the events stay", async () => {
    const h = use();
    const traceId = hexId(16);
    const [perMessage, promptEvents] = [hexId(8), hexId(8)];
    const body = jsonRequest([
      {
        traceId,
        spanId: perMessage,
        attributes: { "gen_ai.system": "openai", "gen_ai.request.model": "gpt-4o-mini" },
        events: [
          event("gen_ai.system.message", { content: "Be brief." }),
          event("gen_ai.user.message", { content: "Where is order 8812?" }),
          event("gen_ai.assistant.message", {
            tool_calls: JSON.stringify([
              { id: "call_7", type: "function", function: { name: "lookup_order", arguments: '{"id":8812}' } },
            ]),
          }),
          event("gen_ai.tool.message", { id: "call_7", content: "shipped" }),
          event("gen_ai.choice", {
            index: 0,
            finish_reason: "stop",
            message: { role: "assistant", content: "It has shipped." },
          }),
        ],
      },
      {
        traceId,
        spanId: promptEvents,
        attributes: { "gen_ai.system": "anthropic", "gen_ai.request.model": "claude-3-5-haiku" },
        events: [
          event("gen_ai.content.prompt", { "gen_ai.prompt": JSON.stringify([{ role: "user", content: "Hi" }]) }),
          event("gen_ai.content.completion", {
            "gen_ai.completion": JSON.stringify([{ role: "assistant", content: "Hello!" }]),
          }),
        ],
      },
    ]);
    expect((await sendOtlp(h, { body: JSON.stringify(body) })).status).toBe(200);
    const trace = await storedOtelTrace(h, traceId);
    const first = messages(trace?.spans[perMessage]?.content as string);
    expect(JSON.parse(first.input).messages).toEqual([
      { role: "system", content: [{ modality: "text", value: "Be brief." }] },
      { role: "user", content: [{ modality: "text", value: "Where is order 8812?" }] },
      {
        role: "assistant",
        content: [{ modality: "tool-call", index: 0, id: "call_7", name: "lookup_order", arguments: '{"id":8812}' }],
      },
      { role: "tool", content: [{ modality: "tool-response", index: 0, id: "call_7", name: "tool", data: "shipped" }] },
    ]);
    expect(JSON.parse(first.output).messages).toEqual([
      { role: "assistant", content: [{ modality: "text", value: "It has shipped." }] },
    ]);
    expect(trace?.spans[perMessage]?.events.map((stored: { name: string }) => stored.name)).toEqual([
      "gen_ai.system.message",
      "gen_ai.user.message",
      "gen_ai.assistant.message",
      "gen_ai.tool.message",
      "gen_ai.choice",
    ]);
    const second = messages(trace?.spans[promptEvents]?.content as string);
    expect(JSON.parse(second.input).messages).toEqual([{ role: "user", content: [{ modality: "text", value: "Hi" }] }]);
    expect(JSON.parse(second.output).messages).toEqual([
      { role: "assistant", content: [{ modality: "text", value: "Hello!" }] },
    ]);
  });

  it("stores an OpenInference retriever's documents as the Retrieval span's output", async () => {
    const h = use();
    const traceId = hexId(16);
    const retriever = hexId(8);
    const body = jsonRequest([
      {
        traceId,
        spanId: retriever,
        attributes: {
          "openinference.span.kind": "RETRIEVER",
          "input.value": "refund policy",
          "retrieval.documents.0.document.id": "doc-1",
          "retrieval.documents.0.document.content": "Refunds within 30 days.",
          "retrieval.documents.0.document.score": 0.92,
          "retrieval.documents.0.document.metadata": JSON.stringify({ source: "policy.md" }),
          "retrieval.documents.1.document.id": "doc-2",
          "retrieval.documents.1.document.content": "Shipping takes 3 days.",
          "retrieval.documents.1.document.score": 0.41,
          "output.value": "two documents",
        },
      },
    ]);
    expect((await sendOtlp(h, { body: JSON.stringify(body) })).status).toBe(200);
    const span = (await storedOtelTrace(h, traceId))?.spans[retriever];
    expect(span).toMatchObject({ contentType: "Retrieval" });
    expect(JSON.parse(messages(span?.content as string).output)).toEqual({
      documents: [
        { id: "doc-1", content: "Refunds within 30 days.", score: 0.92, metadata: { source: "policy.md" } },
        { id: "doc-2", content: "Shipping takes 3 days.", score: 0.41 },
      ],
    });
    expect(messages(span?.content as string).input).toBe('"refund policy"');
    // What the content does not hold stays an attribute; the documents' attributes went into the content.
    expect(span?.attributes).toMatchObject({ "output.value": "two documents" });
    expect(Object.keys(span?.attributes ?? {}).filter((key) => key.startsWith("retrieval."))).toEqual([]);
  });
});

describeEachStore("exportOtelTraces: projects and keys", (use) => {
  it("takes the project from the resource attribute pharos.project.id; the header wins over it", async () => {
    const h = use();
    const [fromAttribute, fromHeader] = [await newProject(h), await newProject(h)];
    const traceId = hexId(16);
    const body = JSON.stringify(jsonRequest([{ traceId, spanId: hexId(8) }], { "pharos.project.id": fromAttribute }));
    expect((await sendOtlp(h, { body, projectId: null })).status).toBe(200);
    expect(await storedOtelTrace(h, traceId, fromAttribute)).toBeDefined();
    const other = hexId(16);
    const second = JSON.stringify(
      jsonRequest([{ traceId: other, spanId: hexId(8) }], { "pharos.project.id": fromAttribute }),
    );
    expect((await sendOtlp(h, { body: second, projectId: fromHeader })).status).toBe(200);
    expect(await storedOtelTrace(h, other, fromHeader)).toBeDefined();
    expect(await storedOtelTrace(h, other, fromAttribute)).toBeUndefined();
  });

  it("serves ingest-only keys; refuses read-only keys (403), keys restricted to other projects (403), other workspaces' projects (404)", async () => {
    const h = use();
    const projectId = await newProject(h);
    const body = () => JSON.stringify(jsonRequest([{ traceId: hexId(16), spanId: hexId(8) }]));
    expect((await sendOtlp(h, { body: body(), key: await h.newKey("ingest-only"), projectId })).status).toBe(200);
    expect((await sendOtlp(h, { body: body(), key: await h.newKey("read-only"), projectId })).status).toBe(403);
    const restricted = await h.newKey("ingest-only", [h.projectId]);
    expect((await sendOtlp(h, { body: body(), key: restricted, projectId })).status).toBe(403);
    const other = await h.otherWorkspace();
    expect((await sendOtlp(h, { body: body(), key: other.key, projectId })).status).toBe(404);
    expect((await sendOtlp(h, { body: body(), projectId: other.projectId })).status).toBe(404);
    expect(await countRows(h, "logSpans", projectId)).toBe(1);
    expect(await countRows(h, "logSpans", other.projectId)).toBe(0);
  });
});

describeEachStore("exportOtelTraces: bad input", (use) => {
  const json = (spans: Parameters<typeof jsonRequest>[0]) => JSON.stringify(jsonRequest(spans));

  it("400 for a truncated protobuf body, bytes that are not protobuf, and gzip that is not gzip; nothing stored", async () => {
    const h = use();
    const projectId = await newProject(h);
    const parent = otlpFixture("otlp-proto-parent.pb");
    for (const body of [parent.subarray(0, parent.length - 7), Buffer.from("not protobuf at all, surely")]) {
      const reply = await sendOtlp(h, { body, projectId });
      expect(reply.status).toBe(400);
      expect(reply.body.error.code).toBe("VALIDATION_ERROR");
    }
    const notGzip = await sendOtlp(h, { body: parent, projectId, headers: { "Content-Encoding": "gzip" } });
    expect(notGzip.status).toBe(400);
    const deflate = await sendOtlp(h, { body: parent, projectId, headers: { "Content-Encoding": "deflate" } });
    expect(deflate.status).toBe(400);
    const text = await sendOtlp(h, { body: parent, projectId, headers: { "Content-Type": "text/plain" } });
    expect(text.status).toBe(400);
    expect(await countRows(h, "logSpans", projectId)).toBe(0);
  });

  it.each([
    ["a number as the trace id", { traceId: 12 }, "traceId"],
    ["base64 ids", { spanId: "7uGbfsPBsXQ=" }, "spanId"],
    ["a string as the kind", { kind: "client" }, "kind"],
    ["text as a time", { startTimeUnixNano: "soon" }, "startTimeUnixNano"],
    ["an object as attributes", { attributes: { a: 1 } }, "attributes"],
  ])("400 naming the field for OTLP/JSON with %s; nothing of the request stored", async (_, fields, field) => {
    const h = use();
    const projectId = await newProject(h);
    const good = { traceId: hexId(16), spanId: hexId(8) };
    const body = JSON.parse(json([good, { traceId: hexId(16), spanId: hexId(8) }]));
    Object.assign(body.resourceSpans[0].scopeSpans[0].spans[1], fields);
    const reply = await sendOtlp(h, { body: JSON.stringify(body), projectId });
    expect(reply.status).toBe(400);
    expect(reply.body.error.message).toContain(field);
    expect(await countRows(h, "logSpans", projectId)).toBe(0);
  });

  it("rejects spans with ids of the wrong length or times out of range one by one (partialSuccess); stores the rest", async () => {
    const h = use();
    const projectId = await newProject(h);
    const traceId = hexId(16);
    const body = json([
      { traceId, spanId: hexId(8) },
      { traceId: "abcd", spanId: hexId(8) },
      { traceId, spanId: "00000000000000000000" },
      { traceId, spanId: hexId(8), parentSpanId: "abcdef" },
      { traceId, spanId: hexId(8), startTimeUnixNano: "5" },
    ]);
    const reply = await sendOtlp(h, { body, projectId });
    expect(reply.status).toBe(200);
    expect(reply.body.partialSuccess.rejectedSpans).toBe("4");
    expect(reply.body.partialSuccess.errorMessage).toContain("resourceSpans.0.scopeSpans.0.spans.1: traceId");
    expect(await countRows(h, "logSpans", projectId)).toBe(1);

    const proto = await sendOtlp(h, {
      body: encodeTraceRequest(readTraceRequestJson(JSON.parse(json([{ traceId, spanId: "abcd" }])))),
      projectId,
    });
    expect(proto.status).toBe(200);
    expect(decodeTraceResponse(proto.body).partialSuccess?.rejectedSpans).toBe(1);
  });

  it("413 for a gzip bomb (a small body over 64 MB decompressed); nothing stored", async () => {
    const h = use();
    const projectId = await newProject(h);
    const bomb = gzipSync(Buffer.alloc(65 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(100 * 1024);
    const reply = await sendOtlp(h, {
      body: bomb,
      encoding: "json",
      projectId,
      headers: { "Content-Encoding": "gzip" },
    });
    expect(reply.status).toBe(413);
    expect(reply.body.error.code).toBe("PAYLOAD_TOO_LARGE");
    expect(await countRows(h, "logSpans", projectId)).toBe(0);
  });

  it("stores a protobuf span whose attribute nests 100 deep; 400 past 128 levels, and for OTLP/JSON past the body's 64", async () => {
    const h = use();
    const projectId = await newProject(h);
    const nested = (depth: number): unknown => (depth === 0 ? "leaf" : { next: nested(depth - 1) });
    const deepMap = (depth: number): OtlpValue => (depth === 0 ? "leaf" : new Map([["next", deepMap(depth - 1)]]));
    const protobuf = (depth: number, traceId = hexId(16), spanId = hexId(8)) => {
      const request = readTraceRequestJson(JSON.parse(json([{ traceId, spanId }])));
      request.resourceSpans[0]?.scopeSpans[0]?.spans[0]?.attributes.set("deep", deepMap(depth));
      return encodeTraceRequest(request);
    };
    const traceId = hexId(16);
    const spanId = hexId(8);
    const deep = await sendOtlp(h, { body: protobuf(100, traceId, spanId), projectId });
    expect(deep.status, JSON.stringify(deep.body)).toBe(200);
    const span = (await storedOtelTrace(h, traceId, projectId))?.spans[spanId];
    // A map is kept as JSON text.
    expect(JSON.parse(span?.attributes.deep)).toEqual(nested(100));
    const tooDeep = await sendOtlp(h, { body: protobuf(140), projectId });
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.body.error.message).toMatch(/deeper than 128|recursion depth/);
    // In OTLP/JSON each level of a map is four levels of JSON: the body's limit of 64 levels answers first.
    const deepJson = await sendOtlp(h, {
      body: json([{ traceId: hexId(16), spanId: hexId(8), attributes: { deep: nested(100) } }]),
      projectId,
    });
    expect(deepJson.status).toBe(400);
    expect(deepJson.body.error.message).toContain("64 levels");
    expect(await countRows(h, "logSpans", projectId)).toBe(1);
  });

  it("stores U+0000 of a protobuf span's names, provider, model, attribute keys and values as U+FFFD", async () => {
    const h = use();
    const projectId = await newProject(h);
    const traceId = hexId(16);
    const spanId = hexId(8);
    const attributes = {
      "gen_ai.provider.name": "open\u0000ai",
      "gen_ai.request.model": "gpt\u0000",
      "gen_ai.usage.input_tokens": 1,
      "k\u0000": "v\u0000",
      list: ["\u0000"],
    };
    const body = json([
      { traceId, spanId, name: "n\u0000", attributes, events: [{ name: "e\u0000", timeUnixNano: "1" }] },
    ]);
    // OTLP/JSON is refused as every JSON body with U+0000 is (400); protobuf is stored, the NULs replaced.
    expect((await sendOtlp(h, { body, projectId })).status).toBe(400);
    const reply = await sendOtlp(h, { body: encodeTraceRequest(readTraceRequestJson(JSON.parse(body))), projectId });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const span = (await storedOtelTrace(h, traceId, projectId))?.spans[spanId];
    expect(span).toMatchObject({ name: "n\uFFFD", provider: "open\uFFFDai", model: "gpt\uFFFD" });
    expect(span?.attributes).toMatchObject({ "k\uFFFD": "v\uFFFD", list: '["\\u0000"]' });
    expect(span?.events[0].name).toBe("e\u0000");
  });

  it("stores content over 1 MB truncated and marked, its token usage kept", async () => {
    const h = use();
    const projectId = await newProject(h);
    const traceId = hexId(16);
    const spanId = hexId(8);
    const attributes = {
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-4o-mini",
      "gen_ai.input.messages": JSON.stringify([
        { role: "user", parts: [{ type: "text", content: "x".repeat(1_200_000) }] },
      ]),
      "gen_ai.usage.input_tokens": 300_000,
      "gen_ai.usage.output_tokens": 1,
    };
    const reply = await sendOtlp(h, { body: json([{ traceId, spanId, attributes }]), projectId, gzip: true });
    expect(reply.status).toBe(200);
    const span = (await storedOtelTrace(h, traceId, projectId))?.spans[spanId];
    expect(span?.content.length).toBeLessThan(1_048_576);
    expect(span).toMatchObject({ contentType: "Model", promptTokens: 300_000 });
    expect(span?.attributes["pharos.content.truncated"]).toBe(true);
    expect(JSON.parse(JSON.parse(span?.content as string).input)).toMatchObject({ truncated: true });
  });

  it("keeps what does not fit attributes and events (over 100 keys, long values, over 100 events) in the content", async () => {
    const h = use();
    const projectId = await newProject(h);
    const traceId = hexId(16);
    const spanId = hexId(8);
    const attributes = Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`k${i}`, i]));
    const events = Array.from({ length: 105 }, (_, i) => ({ name: `e${i}`, timeUnixNano: "1" }));
    const body = json([
      { traceId, spanId, attributes: { ...attributes, long: "y".repeat(5000), "": "empty key" }, events },
    ]);
    expect((await sendOtlp(h, { body, projectId })).status).toBe(200);
    const span = (await storedOtelTrace(h, traceId, projectId))?.spans[spanId];
    expect(Object.keys(span?.attributes ?? {})).toHaveLength(100);
    expect(span?.events).toHaveLength(100);
    const kept = JSON.parse(JSON.parse(span?.content as string).input).otel;
    expect(Object.keys(kept.attributes)).toEqual(expect.arrayContaining(["k119", "long", ""]));
    expect(kept.events).toHaveLength(5);
    expect(Object.keys(span?.attributes ?? {}).length + Object.keys(kept.attributes).length).toBe(
      122 + 4, // the span's, plus the resource's service.name, scope name and version, and the kind
    );
  });

  it("stores a trace of 10,000 spans over several requests, and rejects the spans beyond", async () => {
    const h = use();
    const projectId = await newProject(h);
    const traceId = hexId(16);
    for (let sent = 0; sent < 10_000; sent += 2500) {
      const spans = Array.from({ length: 2500 }, () => ({ traceId, spanId: hexId(8), name: "step" }));
      const reply = await sendOtlp(h, { body: json(spans), projectId, gzip: true });
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({});
    }
    const beyond = await sendOtlp(h, { body: json([{ traceId, spanId: hexId(8) }]), projectId });
    expect(beyond.body.partialSuccess.rejectedSpans).toBe("1");
    const trace = await storedOtelTrace(h, traceId, projectId);
    expect(trace?.spanIds).toHaveLength(10_000);
    expect(await countRows(h, "logSpans", projectId)).toBe(10_000);
  });

  it("attaches a parent and its child sent at the same time to one trace", async () => {
    const h = use();
    const projectId = await newProject(h);
    const traceId = hexId(16);
    const parent = hexId(8);
    const replies = await Promise.all(
      [
        json([{ traceId, spanId: parent, name: "root" }]),
        json([{ traceId, spanId: hexId(8), parentSpanId: parent }]),
        json([{ traceId, spanId: hexId(8), parentSpanId: parent }]),
      ].map((body) => sendOtlp(h, { body, projectId })),
    );
    expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200]);
    const trace = await storedOtelTrace(h, traceId, projectId);
    expect(trace).toMatchObject({ name: "root", status: "success" });
    expect(trace?.spanIds).toHaveLength(3);
  });

  it("sets the trace's sessionId from session.id and its userId from user.id or enduser.id, whichever span brings them", async () => {
    const h = use();
    const projectId = await newProject(h);
    // A trace whose first request names neither: a later span's session.id and enduser.id fill them in.
    const late = hexId(16);
    const root = hexId(8);
    await sendOtlp(h, { body: json([{ traceId: late, spanId: root, name: "turn" }]), projectId });
    const child = { traceId: late, spanId: hexId(8), parentSpanId: root };
    await sendOtlp(h, {
      body: json([{ ...child, attributes: { "session.id": "chat-1", "enduser.id": "ada" } }]),
      projectId,
    });
    // A new trace: the root's user.id wins over enduser.id; a too-long user.id is ignored, the attribute kept.
    const early = hexId(16);
    const earlyRoot = hexId(8);
    await sendOtlp(h, {
      body: json([
        { traceId: early, spanId: hexId(8), parentSpanId: earlyRoot, attributes: { "user.id": "x".repeat(129) } },
        {
          traceId: early,
          spanId: earlyRoot,
          attributes: { "session.id": "chat-1", "user.id": "ada", "enduser.id": "bob" },
        },
      ]),
      projectId,
    });

    const search = await h.request("POST", "/logs/traces", {
      body: { projectId, userId: "ada", sort: "startedAt:asc" },
    });
    expect(search.body.traces.map((trace: { referenceId: string }) => trace.referenceId).sort()).toEqual(
      [early, late].sort(),
    );
    expect(search.body.traces.map((trace: { sessionId: string }) => trace.sessionId)).toEqual(["chat-1", "chat-1"]);
    const sessions = await h.request("GET", `/projects/${projectId}/sessions`);
    expect(sessions.body.sessions).toEqual([expect.objectContaining({ id: "chat-1", traceCount: 2 })]);
    // The span's own sessionId, and the attributes kept verbatim.
    const stored = await storedOtelTrace(h, early, projectId);
    expect(stored?.spans[earlyRoot]).toMatchObject({
      sessionId: "chat-1",
      attributes: expect.objectContaining({ "session.id": "chat-1", "user.id": "ada", "enduser.id": "bob" }),
    });
  });
});

describeEachStore("exportOtelTraces: the OpenTelemetry JS SDK and its exporters", (use) => {
  let server: Server;
  let base: string;
  const requests: string[] = [];
  beforeAll(async () => {
    const { app } = use();
    server = createAdaptorServer({
      fetch: (request: Request) => {
        requests.push(request.headers.get("content-type") ?? "");
        return app.fetch(request);
      },
    }) as Server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it.each([
    ["protobuf", "none"],
    ["protobuf", "gzip"],
    ["json", "none"],
    ["json", "gzip"],
  ] as const)(
    "stores a trace the %s exporter (compression %s) splits over several requests, children first",
    async (encoding, compression) => {
      const h = use();
      const projectId = await newProject(h);
      const options = {
        url: `${base}/v2/otel/v1/traces`,
        headers: { Authorization: `Bearer ${h.key}`, "x-pharos-project-id": projectId },
        compression: compression as never,
      };
      const exporter = encoding === "protobuf" ? new ProtoExporter(options) : new JsonExporter(options);
      const provider = new NodeTracerProvider({
        resource: resourceFromAttributes({ "service.name": "sdk-test" }),
        // Two spans per export: the four spans of the trace go out in two requests, the root (ended last) in the last.
        spanProcessors: [new BatchSpanProcessor(exporter, { maxExportBatchSize: 2, scheduledDelayMillis: 5 })],
      });
      const tracer = provider.getTracer("sdk-test", "1.0.0");
      const before = requests.length;

      const root = tracer.startSpan("answer-question", { kind: SpanKind.SERVER });
      const inRoot = trace.setSpan(context.active(), root);
      const llm = tracer.startSpan(
        "chat gpt-4o-mini",
        {
          kind: SpanKind.CLIENT,
          attributes: {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": "openai",
            "gen_ai.request.model": "gpt-4o-mini",
            "gen_ai.input.messages": JSON.stringify([{ role: "user", parts: [{ type: "text", content: "Hi" }] }]),
            "gen_ai.usage.input_tokens": 12,
            "gen_ai.usage.output_tokens": 7,
            "app.tags": ["a", "b"],
          },
        },
        inRoot,
      );
      llm.addEvent("first-token", { "gen_ai.token.index": 0 });
      llm.end();
      const tool = tracer.startSpan(
        "execute_tool lookup",
        { attributes: { "gen_ai.operation.name": "execute_tool" } },
        inRoot,
      );
      tool.setStatus({ code: SpanStatusCode.ERROR, message: "not found" });
      tool.end();
      tracer.startSpan("format", {}, inRoot).end();
      root.end();
      await provider.forceFlush();
      await provider.shutdown();

      const sent = requests.slice(before);
      expect(sent.length).toBeGreaterThanOrEqual(2);
      expect(
        sent.every((type) => type.startsWith(encoding === "protobuf" ? "application/x-protobuf" : "application/json")),
      ).toBe(true);
      const { traceId, spanId } = root.spanContext();
      const stored = await storedOtelTrace(h, traceId, projectId);
      expect(stored).toMatchObject({
        name: "answer-question",
        status: "success",
        totalInputTokens: 12,
        totalOutputTokens: 7,
      });
      expect(stored?.spanIds).toHaveLength(4);
      const model = stored?.spans[llm.spanContext().spanId];
      expect(model).toMatchObject({ contentType: "Model", provider: "openai", parentReferenceId: spanId });
      expect(model?.cost).toBeCloseTo(GPT_4O_MINI_COST, 15);
      expect(model?.attributes).toMatchObject({
        "app.tags": '["a","b"]',
        "otel.span.kind": "client",
        "otel.resource.service.name": "sdk-test",
      });
      expect(model?.events[0]).toMatchObject({ name: "first-token", attributes: { "gen_ai.token.index": 0 } });
      expect(stored?.spans[tool.spanContext().spanId]).toMatchObject({ contentType: "Tool", status: "failure" });
      expect(stored?.spans[spanId]).toMatchObject({ contentType: "Other", parentReferenceId: null });
    },
  );
});

describeEachStore("exportOtelTraces: the Vercel AI SDK's telemetry against the fake provider", (use) => {
  let server: Server;
  let base: string;
  let fake: FakeProvider;
  beforeAll(async () => {
    server = createAdaptorServer({ fetch: use().app.fetch }) as Server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    fake = await startFakeProvider();
  });
  afterAll(async () => {
    await fake.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** A tracer provider exporting protobuf to the server, with the project as a resource attribute. */
  function tracerProvider(h: Harness, projectId: string) {
    return new NodeTracerProvider({
      resource: resourceFromAttributes({ "service.name": "ai-app", "pharos.project.id": projectId }),
      spanProcessors: [
        new BatchSpanProcessor(
          new ProtoExporter({ url: `${base}/v2/otel/v1/traces`, headers: { Authorization: `Bearer ${h.key}` } }),
        ),
      ],
    });
  }

  it("stores ai's generateText as a Function span around its Model call (doGenerate)", async () => {
    const h = use();
    const projectId = await newProject(h);
    const provider = tracerProvider(h, projectId);
    const model = createOpenAI({ baseURL: `${fake.url}/v1`, apiKey: "test" }).chat("gpt-4o-mini");
    const telemetry = { isEnabled: true, functionId: "support-chat", tracer: provider.getTracer("ai") };
    // The AI SDK nests its spans through the active context: that takes the global context manager register() sets.
    provider.register();
    let result: Awaited<ReturnType<typeof generateText>>;
    try {
      result = await generateText({
        model,
        system: "You are terse.",
        prompt: "Say hi",
        experimental_telemetry: telemetry,
      });
      await provider.forceFlush();
    } finally {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    }
    expect(result.text).toBe("Echo: Say hi");

    // Found as an application's user finds them: through search.
    const traces = await h.request("POST", "/logs/traces", { body: { projectId } });
    expect(traces.body.traces).toHaveLength(1);
    const storedTrace = traces.body.traces[0];
    expect(storedTrace).toMatchObject({ name: "ai.generateText", status: "success" });
    const spans = await searchSpans(h, projectId);
    const inner = spans.find((span) => span.contentType === "Model");
    expect(inner, JSON.stringify(spans.map((span) => [span.name, span.contentType]))).toMatchObject({
      name: "ai.generateText.doGenerate",
      parsedContent: { type: "Model", provider: "openai", model: "gpt-4o-mini" },
    });
    expect(inner?.promptTokens).toBe(result.usage.inputTokens);
    expect(inner?.completionTokens).toBe(result.usage.outputTokens);
    expect(inner?.cost).toBeGreaterThan(0);
    expect(storedTrace?.totalInputTokens).toBe(inner?.promptTokens);
    const content = messages(inner?.content as string);
    expect(JSON.parse(content.input).messages).toEqual([
      { role: "system", content: [{ modality: "text", value: "You are terse." }] },
      { role: "user", content: [{ modality: "text", value: "Say hi" }] },
    ]);
    expect(JSON.parse(content.output).messages[0].content[0].value).toBe("Echo: Say hi");
    expect(spans.find((span) => span.name === "ai.generateText")).toMatchObject({ contentType: "Function" });
  });

  it("stores ai's streamText as a Function span around its streamed Model call (doStream), usage and text whole", async () => {
    const h = use();
    const projectId = await newProject(h);
    const provider = tracerProvider(h, projectId);
    const model = createOpenAI({ baseURL: `${fake.url}/v1`, apiKey: "test" }).chat("gpt-4o-mini");
    provider.register();
    let text: string;
    let usage: Awaited<ReturnType<typeof streamText>["usage"]>;
    try {
      const result = streamText({
        model,
        prompt: "Stream a greeting",
        experimental_telemetry: { isEnabled: true, functionId: "support-chat", tracer: provider.getTracer("ai") },
      });
      text = await result.text;
      usage = await result.usage;
      await provider.forceFlush();
    } finally {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    }
    expect(text).toBe("Echo: Stream a greeting");
    expect(fake.requests.at(-1)?.body).toMatchObject({ stream: true });

    const spans = await searchSpans(h, projectId);
    const inner = spans.find((span) => span.contentType === "Model");
    expect(inner, JSON.stringify(spans.map((span) => [span.name, span.contentType]))).toMatchObject({
      name: "ai.streamText.doStream",
      parsedContent: { type: "Model", provider: "openai", model: "gpt-4o-mini" },
    });
    expect(inner?.promptTokens).toBe(usage.inputTokens);
    expect(inner?.completionTokens).toBe(usage.outputTokens);
    expect(inner?.cost).toBeGreaterThan(0);
    const content = messages(inner?.content as string);
    expect(JSON.parse(content.input).messages).toEqual([
      { role: "user", content: [{ modality: "text", value: "Stream a greeting" }] },
    ]);
    expect(JSON.parse(content.output).messages[0].content[0].value).toBe("Echo: Stream a greeting");
    expect(spans.find((span) => span.name === "ai.streamText")).toMatchObject({ contentType: "Function" });
    const traces = await h.request("POST", "/logs/traces", { body: { projectId } });
    expect(traces.body.traces[0]).toMatchObject({ name: "ai.streamText", totalInputTokens: usage.inputTokens });
  });
});

/**
 * The instrumentations keep the tracer they patched the openai SDK with: they trace to one provider for the file,
 * whose exporter hands the spans to the exporter of the test that runs.
 */
class ForwardingExporter implements SpanExporter {
  target: SpanExporter | undefined;
  export(...[spans, done]: Parameters<SpanExporter["export"]>): void {
    if (this.target) this.target.export(spans, done);
    else done({ code: 0 });
  }
  async shutdown(): Promise<void> {}
  async forceFlush(): Promise<void> {
    await this.target?.forceFlush?.();
  }
}
const forwarding = new ForwardingExporter();
const instrumentedProvider = new NodeTracerProvider({
  resource: resourceFromAttributes({ "service.name": "openai-app" }),
  spanProcessors: [new BatchSpanProcessor(forwarding)],
});
const openInference = new OpenInferenceOpenAI({ tracerProvider: instrumentedProvider });
const openLLMetry = new OpenLLMetryOpenAI({ traceContent: true });
openLLMetry.setTracerProvider(instrumentedProvider);

describeEachStore(
  "exportOtelTraces: OpenInference's and OpenLLMetry's OpenAI instrumentations against the fake provider",
  (use) => {
    let server: Server;
    let base: string;
    let fake: FakeProvider;
    beforeAll(async () => {
      server = createAdaptorServer({ fetch: use().app.fetch }) as Server;
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      fake = await startFakeProvider();
    });
    afterAll(async () => {
      await fake.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    /** One chat completion through the openai SDK, traced by `instrumentation`; the stored span of its `scope`. */
    async function instrumentedChat(
      h: Harness,
      scope: string,
      instrumentation: OpenInferenceOpenAI | OpenLLMetryOpenAI,
    ) {
      const projectId = await newProject(h);
      forwarding.target = new JsonExporter({
        url: `${base}/v2/otel/v1/traces`,
        headers: { Authorization: `Bearer ${h.key}`, "x-pharos-project-id": projectId },
      });
      // One instrumentation at a time (patching unwraps what the other wrapped): OpenInference's patch is undone
      // first, since it would not patch a module it patched before.
      (openInference as unknown as { unpatch(module: unknown): void }).unpatch(OpenAI);
      instrumentation.manuallyInstrument(OpenAI);
      const client = new OpenAI({ baseURL: `${fake.url}/v1`, apiKey: "test" });
      const completion = await client.chat.completions.create({
        model: "gpt-4o-mini",
        messages: [
          { role: "system", content: "You are terse." },
          { role: "user", content: "Say hi" },
        ],
      });
      await instrumentedProvider.forceFlush();
      forwarding.target = undefined;
      const span = (await searchSpans(h, projectId)).find((found) => found.attributes["otel.scope.name"] === scope);
      return { completion, span };
    }

    it.each([
      ["OpenInference", "@arizeai/openinference-instrumentation-openai", openInference],
      ["OpenLLMetry", "@traceloop/instrumentation-openai", openLLMetry],
    ] as const)("stores %s's chat completion span as a Model span", async (_, scope, instrumentation) => {
      const h = use();
      const { completion, span } = await instrumentedChat(h, scope, instrumentation);
      expect(completion.choices[0]?.message.content).toBe("Echo: Say hi");
      expect(span).toMatchObject({
        contentType: "Model",
        parsedContent: { provider: "openai", model: "gpt-4o-mini" },
      });
      expect(span?.promptTokens).toBe(completion.usage?.prompt_tokens);
      expect(span?.completionTokens).toBe(completion.usage?.completion_tokens);
      expect(span?.cost).toBeGreaterThan(0);
      const content = messages(span?.content as string);
      expect(JSON.parse(content.input).messages).toEqual([
        { role: "system", content: [{ modality: "text", value: "You are terse." }] },
        { role: "user", content: [{ modality: "text", value: "Say hi" }] },
      ]);
      expect(JSON.parse(content.output).messages[0]).toEqual({
        role: "assistant",
        content: [{ modality: "text", value: "Echo: Say hi" }],
      });
    });
  },
);
