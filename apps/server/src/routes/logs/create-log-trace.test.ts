import { expect, it } from "vitest";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";
import {
  attributeIndex,
  type Body,
  countRows,
  createTrace,
  jsonTextOfBytes,
  missingId,
  modelSpan,
  newDeployment,
  newProject,
  newPrompt,
  platformOutput,
  postTrace,
  stepSpan,
  storedSpans,
  storedTrace,
  T0,
  tagIndex,
  traceBody,
  uniqueRef,
} from "../../testing/log-write-fixtures.ts";

const BUILT_IN_STEP_TYPES = ["Function", "Tool", "Guardrail", "Retrieval", "Embeddings", "Other"];
const MB = 1_048_576;

/** A Tool content object whose compact JSON is exactly `bytes` long. */
function toolContentOfBytes(bytes: number): Body {
  const content = (filler: number) => ({ type: "Tool", input: jsonTextOfBytes(filler), output: "{}" });
  const overhead = Buffer.byteLength(JSON.stringify(content(10))) - 10;
  const sized = content(bytes - overhead);
  expect(Buffer.byteLength(JSON.stringify(sized))).toBe(bytes);
  return sized;
}

const detailFields = (reply: { body: any }) =>
  (reply.body.error.details as { field: string }[]).map((detail) => detail.field).sort();

describeEachStore("createLogTrace", (use) => {
  it("stores the trace and its spans (200), ids in request order, aggregates from the Model spans", async () => {
    const h = use();
    const { promptId, deploymentId } = await newDeployment(h);
    const referenceId = uniqueRef("req");
    const reply = await postTrace(
      h,
      traceBody(
        h,
        {
          referenceId,
          sessionId: "sess-42",
          attributes: { "user.plan": "pro", retries: 2, cached: false },
          tags: ["production", "checkout", "production"],
        },
        [
          modelSpan({
            referenceId: "span-llm-1",
            promptId,
            deploymentId,
            runEvaluation: true,
            attributes: { temperature: 0.2, cached: true, region: "eu" },
            tags: ["llm", "llm"],
            events: ['{"name":"first-token","at":1732190400400}'],
          }),
          stepSpan({ referenceId: "span-tool-1", parentReferenceId: "span-llm-1" }),
          modelSpan(
            { name: "second-call", startedAt: T0 + 1500, endedAt: T0 + 1900 },
            { cost: 0.5, output: platformOutput(100, 40) },
          ),
          // Provider-native output: no token counts; no cost.
          modelSpan({ name: "native" }, { cost: undefined, output: '{"usage":{"prompt_tokens":7}}' }),
          {
            name: "stream-chunk",
            status: "unknown",
            startedAt: T0 + 200,
            endedAt: T0 + 210,
            parentReferenceId: "span-llm-1",
            content: {
              type: "ModelStream",
              provider: "openai",
              model: "gpt-4o-mini",
              input: "{}",
              output: 'data: {"choices":[{"delta":{"content":"Hel"}}]}',
              aggregateOutput: '{"tokenUsage":{"promptTokens":999,"completionTokens":999,"totalTokens":1998}}',
            },
          },
        ],
      ),
    );
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.traceId).toMatch(/^trace_[0-9A-Z]{26}$/);
    expect(reply.body.spanIds).toHaveLength(5);
    for (const id of reply.body.spanIds) expect(id).toMatch(/^span_[0-9A-Z]{26}$/);

    const trace = await storedTrace(h, reply.body.traceId);
    expect(trace).toMatchObject({
      projectId: h.projectId,
      workspaceId: h.workspaceId,
      name: "support-chat",
      status: "success",
      startedAt: T0,
      endedAt: T0 + 2000,
      latency: 2000,
      referenceId,
      sessionId: "sess-42",
      attributes: { "user.plan": "pro", retries: 2, cached: false },
      tags: ["production", "checkout"],
      spanIds: reply.body.spanIds,
      totalInputTokens: 112,
      totalOutputTokens: 45,
    });
    expect(trace?.totalCost).toBeCloseTo(0.75, 12);
    expect(trace?.createdAt).toBe(trace?.updatedAt);

    const spans = await storedSpans(h, reply.body.traceId);
    const byName = Object.fromEntries(spans.map((span) => [span.name, span]));
    expect(byName["llm-call"]).toMatchObject({
      id: reply.body.spanIds[0],
      contentType: "Model",
      status: "success",
      latency: 1200,
      promptId,
      deploymentId,
      referenceId: "span-llm-1",
      parentReferenceId: null,
      sessionId: null,
      runEvaluation: 1,
      model: "gpt-4o-mini",
      provider: "openai",
      cost: 0.25,
      promptTokens: 12,
      completionTokens: 5,
      totalTokens: 17,
      attributes: { temperature: 0.2, cached: true, region: "eu" },
      tags: ["llm"],
      events: ['{"name":"first-token","at":1732190400400}'],
    });
    expect(JSON.parse(byName["llm-call"]?.content as string)).toEqual(modelSpan().content);
    expect(byName.lookup_order).toMatchObject({
      contentType: "Tool",
      parentReferenceId: "span-llm-1",
      runEvaluation: 0,
      model: null,
      provider: null,
      cost: null,
      promptTokens: null,
      attributes: {},
      tags: [],
      events: [],
    });
    expect(byName["second-call"]).toMatchObject({ cost: 0.5, promptTokens: 100, completionTokens: 40 });
    expect(byName.native).toMatchObject({ cost: null, promptTokens: null, completionTokens: null, totalTokens: null });
    expect(byName["stream-chunk"]).toMatchObject({
      contentType: "ModelStream",
      model: "gpt-4o-mini",
      provider: "openai",
      cost: null,
      promptTokens: null,
    });

    // The indexed rows search relies on: typed values, the owner's kind and start.
    expect(await attributeIndex(h, "trace", reply.body.traceId)).toEqual({
      "user.plan": {
        projectId: h.projectId,
        ownerKind: "trace",
        ownerId: reply.body.traceId,
        textValue: "pro",
        numberValue: null,
        booleanValue: null,
        startedAt: T0,
      },
      retries: {
        projectId: h.projectId,
        ownerKind: "trace",
        ownerId: reply.body.traceId,
        textValue: null,
        numberValue: 2,
        booleanValue: null,
        startedAt: T0,
      },
      cached: {
        projectId: h.projectId,
        ownerKind: "trace",
        ownerId: reply.body.traceId,
        textValue: null,
        numberValue: null,
        booleanValue: 0,
        startedAt: T0,
      },
    });
    expect(await tagIndex(h, "trace", reply.body.traceId)).toEqual(["checkout", "production"]);
    const llm = byName["llm-call"]?.id as string;
    expect(await attributeIndex(h, "span", llm)).toMatchObject({
      temperature: { ownerKind: "span", numberValue: 0.2, textValue: null, startedAt: T0 + 100 },
      cached: { booleanValue: 1, startedAt: T0 + 100 },
      region: { textValue: "eu" },
    });
    expect(await tagIndex(h, "span", llm)).toEqual(["llm"]);
  });

  it("stores a trace without spans (omitted or null), its end the server's time when omitted", async () => {
    const h = use();
    const omitted = await createTrace(h, traceBody(h));
    expect(omitted.spanIds).toEqual([]);
    const bare = await createTrace(h, {
      projectId: h.projectId,
      trace: { name: "bare", status: "pending", startedAt: T0 },
    });
    const before = h.now();
    const stored = await storedTrace(h, bare.traceId);
    expect(stored).toMatchObject({
      status: "pending",
      referenceId: null,
      sessionId: null,
      userId: null,
      attributes: {},
      tags: [],
      spanIds: [],
      totalCost: 0,
      totalInputTokens: 0,
      totalOutputTokens: 0,
    });
    expect(stored?.endedAt).toBeGreaterThan(T0);
    expect(stored?.endedAt).toBeLessThan(before);
    expect(stored?.latency).toBe((stored?.endedAt as number) - T0);

    const nullSpans = await createTrace(h, traceBody(h, {}, null));
    expect(nullSpans.spanIds).toEqual([]);
    // A client clock ahead of the server's: the end is the start (latency 0).
    const ahead = T0 + 10 * 365 * 24 * 3600 * 1000;
    const future = await createTrace(h, {
      projectId: h.projectId,
      trace: { name: "ahead", status: "unknown", startedAt: ahead },
    });
    expect(await storedTrace(h, future.traceId)).toMatchObject({ startedAt: ahead, endedAt: ahead, latency: 0 });
  });

  it("accepts every built-in content type and custom types, stored under their own type", async () => {
    const h = use();
    const spans = [
      ...BUILT_IN_STEP_TYPES.map((type) => stepSpan({ name: type }, type)),
      stepSpan({ name: "custom" }, "Reranker"),
      stepSpan({ name: "custom-dotted" }, "acme.vector-search_v2"),
      modelSpan({ name: "model" }),
      modelSpan({ name: "model-variables" }, { variables: { question: { modality: "text", value: "Where?" } } }),
      {
        ...stepSpan({ name: "stream" }),
        content: {
          type: "ModelStream",
          provider: "p",
          model: "m",
          input: "[]",
          output: "not json",
          aggregateOutput: "{}",
        },
      },
    ];
    const created = await createTrace(h, traceBody(h, {}, spans));
    const stored = await storedSpans(h, created.traceId);
    expect(Object.fromEntries(stored.map((span) => [span.name, span.contentType]))).toEqual({
      Function: "Function",
      Tool: "Tool",
      Guardrail: "Guardrail",
      Retrieval: "Retrieval",
      Embeddings: "Embeddings",
      Other: "Other",
      custom: "Reranker",
      "custom-dotted": "acme.vector-search_v2",
      model: "Model",
      "model-variables": "Model",
      stream: "ModelStream",
    });
    const custom = stored.find((span) => span.name === "custom");
    expect(custom).toMatchObject({ cost: null, promptTokens: null, model: null });
  });

  it("takes a custom type named like a property every object has (constructor, toString) as a custom type", async () => {
    const h = use();
    const names = ["constructor", "toString", "valueOf", "hasOwnProperty", "isPrototypeOf"];
    const spans = names.flatMap((type) => {
      const content = { type, input: "{}", output: "{}" };
      return [
        stepSpan({ name: `${type}-object`, content }),
        stepSpan({ name: `${type}-text`, content: JSON.stringify(content) }),
      ];
    });
    const created = await createTrace(h, traceBody(h, {}, spans));
    const stored = await storedSpans(h, created.traceId);
    expect(stored.map((span) => [span.name, span.contentType])).toEqual(
      names.flatMap((type) => [
        [`${type}-object`, type],
        [`${type}-text`, type],
      ]),
    );
  });

  it("accepts content as JSON text and stores the compact JSON of the validated object, as for an object", async () => {
    const h = use();
    const object = { type: "Tool", input: '{"orderId": "8812"}', output: "[1, 2]" };
    const text = '{\n  "output": "[1, 2]",\n  "type": "Tool",\n  "input": "{\\"orderId\\": \\"8812\\"}"\n}';
    expect(JSON.parse(text)).toEqual(object);
    const created = await createTrace(
      h,
      traceBody(h, {}, [
        stepSpan({ name: "as-object", content: object }),
        stepSpan({ name: "as-text", content: text }),
      ]),
    );
    const stored = await storedSpans(h, created.traceId);
    const compact = '{"type":"Tool","input":"{\\"orderId\\": \\"8812\\"}","output":"[1, 2]"}';
    expect(stored.map((span) => span.content)).toEqual([compact, compact]);
    // A Model content as text feeds the aggregates like an object does.
    const model = modelSpan().content;
    const asText = await createTrace(h, traceBody(h, {}, [modelSpan({ content: JSON.stringify(model) })]));
    expect(await storedTrace(h, asText.traceId)).toMatchObject({ totalInputTokens: 12, totalOutputTokens: 5 });
  });

  it("400 VALIDATION_ERROR for content that is not a valid content object, as an object or as JSON text", async () => {
    const h = use();
    const model = modelSpan().content;
    const { provider: _provider, ...modelWithoutProvider } = model;
    const invalidContents: [string, unknown][] = [
      ["Model without provider", modelWithoutProvider],
      ["Model without provider, as text", JSON.stringify(modelWithoutProvider)],
      ["Model with a negative cost", { ...model, cost: -1 }],
      [
        "ModelStream without aggregateOutput",
        { type: "ModelStream", provider: "p", model: "m", input: "{}", output: "x" },
      ],
      ["Tool with an extra field", { type: "Tool", input: "{}", output: "{}", extra: 1 }],
      ["custom type with a bad name", { type: "1st-kind", input: "{}", output: "{}" }],
      ["custom type without output", { type: "Reranker", input: "{}" }],
      ["no type", { input: "{}", output: "{}" }],
      ["text that is not JSON", "{type: Tool}"],
      ["JSON text of a number", "42"],
      ["JSON text of an array", "[1, 2]"],
      ["JSON text with a custom type missing input", '{"type":"Reranker","output":"{}"}'],
      ["a one-character string", "x"],
      ["a number", 42],
      ["null", null],
    ];
    for (const [what, content] of invalidContents) {
      const reply = await postTrace(h, traceBody(h, {}, [stepSpan({ content })]));
      await expectError(reply, 400, "VALIDATION_ERROR");
      expect(reply.body.error.details?.length, what).toBeGreaterThan(0);
      expect(reply.body.error.details[0].field, what).toMatch(/^spans\.0\.content/);
    }
  });

  it("400 VALIDATION_ERROR for input/output (and aggregateOutput) that is not JSON text, for every type", async () => {
    const h = use();
    const cases: [Body, string][] = [
      ...[...BUILT_IN_STEP_TYPES, "Reranker"].flatMap((type): [Body, string][] => [
        [{ type, input: "not json", output: "{}" }, "input"],
        [{ type, input: "{}", output: "{oops" }, "output"],
      ]),
      [{ ...modelSpan().content, input: "" }, "input"],
      [{ ...modelSpan().content, output: "<html>" }, "output"],
      [{ type: "ModelStream", provider: "p", model: "m", input: "nope", output: "x", aggregateOutput: "{}" }, "input"],
      [
        { type: "ModelStream", provider: "p", model: "m", input: "{}", output: "x", aggregateOutput: "{" },
        "aggregateOutput",
      ],
    ];
    for (const [content, field] of cases) {
      for (const form of [content, JSON.stringify(content)]) {
        const reply = await postTrace(h, traceBody(h, {}, [stepSpan(), stepSpan({ content: form })]));
        await expectError(reply, 400, "VALIDATION_ERROR");
        expect(detailFields(reply), JSON.stringify(content)).toEqual([`spans.1.content.${field}`]);
      }
    }
    const both = await postTrace(
      h,
      traceBody(h, {}, [stepSpan({ content: { type: "Tool", input: "a", output: "b" } })]),
    );
    expect(detailFields(both)).toEqual(["spans.0.content.input", "spans.0.content.output"]);
  });

  it("400 VALIDATION_ERROR for each of the six rules, with the breach in details", async () => {
    const h = use();
    const ref = () => uniqueRef("rules");
    const cases: [string, Body, string[]][] = [
      ["1. trace ends at its start", traceBody(h, { endedAt: T0 }), ["trace.endedAt"]],
      ["1. trace ends before its start", traceBody(h, { endedAt: T0 - 1 }), ["trace.endedAt"]],
      ["2. span ends at its start", traceBody(h, {}, [stepSpan({ endedAt: T0 + 1400 })]), ["spans.0.endedAt"]],
      [
        "2. span ends before its start",
        traceBody(h, {}, [stepSpan(), stepSpan({ endedAt: T0 + 1 })]),
        ["spans.1.endedAt"],
      ],
      ["3. span starts before the trace", traceBody(h, {}, [stepSpan({ startedAt: T0 - 1 })]), ["spans.0.startedAt"]],
      [
        "4. duplicate span referenceIds",
        traceBody(h, { referenceId: ref() }, [stepSpan({ referenceId: "a" }), stepSpan({ referenceId: "a" })]),
        ["spans.1.referenceId"],
      ],
      [
        "5. parent that no span of the request has",
        traceBody(h, { referenceId: ref() }, [stepSpan({ referenceId: "a", parentReferenceId: "b" })]),
        ["spans.0.parentReferenceId"],
      ],
      [
        "5. a span that is its own parent",
        traceBody(h, { referenceId: ref() }, [stepSpan({ referenceId: "a", parentReferenceId: "a" })]),
        ["spans.0.parentReferenceId"],
      ],
      [
        "6. span referenceId without a trace referenceId",
        traceBody(h, {}, [stepSpan({ referenceId: "a" })]),
        ["trace.referenceId"],
      ],
    ];
    for (const [what, body, fields] of cases) {
      const reply = await postTrace(h, body);
      await expectError(reply, 400, "VALIDATION_ERROR");
      expect(detailFields(reply), what).toEqual(fields);
    }
    // A span may start exactly with its trace, and a parent may come after its child.
    await createTrace(
      h,
      traceBody(h, { referenceId: ref() }, [
        stepSpan({ startedAt: T0, parentReferenceId: "later" }),
        stepSpan({ referenceId: "later" }),
      ]),
    );
  });

  it("400 VALIDATION_ERROR lists every breach of a request at once; nothing is stored", async () => {
    const h = use();
    const projectId = await newProject(h);
    const reply = await postTrace(
      h,
      traceBody(
        h,
        { endedAt: T0 - 5 },
        [
          stepSpan({ referenceId: "a", startedAt: T0 - 10, endedAt: T0 - 20 }),
          stepSpan({ referenceId: "a", parentReferenceId: "nobody" }),
          stepSpan({ content: { type: "Tool", input: "{", output: "{}" } }),
        ],
        projectId,
      ),
    );
    await expectError(reply, 400, "VALIDATION_ERROR");
    expect(detailFields(reply)).toEqual([
      "spans.0.endedAt",
      "spans.0.startedAt",
      "spans.1.parentReferenceId",
      "spans.1.referenceId",
      "spans.2.content.input",
      "trace.endedAt",
      "trace.referenceId",
    ]);
    expect(await countRows(h, "logTraces", projectId)).toBe(0);
    expect(await countRows(h, "logSpans", projectId)).toBe(0);
  });

  it("accepts 1,000 spans in one request", async () => {
    const h = use();
    const created = await createTrace(
      h,
      traceBody(
        h,
        {},
        Array.from({ length: 1000 }, (_, i) => stepSpan({ name: `s${i}` })),
      ),
    );
    expect(created.spanIds).toHaveLength(1000);
    expect((await storedTrace(h, created.traceId))?.spanIds).toEqual(created.spanIds);
    expect((await storedSpans(h, created.traceId)).length).toBe(1000);
  });

  it("413 PAYLOAD_TOO_LARGE for content over 1 MB (1,048,576 bytes of UTF-8), as an object or as text", async () => {
    const h = use();
    const exactly = await createTrace(h, traceBody(h, {}, [stepSpan({ content: toolContentOfBytes(MB) })]));
    expect((await storedSpans(h, exactly.traceId))[0]?.content.length).toBe(MB);

    await expectError(
      await postTrace(h, traceBody(h, {}, [stepSpan({ content: toolContentOfBytes(MB + 1) })])),
      413,
      "PAYLOAD_TOO_LARGE",
    );
    const text = JSON.stringify(toolContentOfBytes(MB + 1));
    await expectError(
      await postTrace(h, traceBody(h, {}, [stepSpan(), stepSpan({ content: text })])),
      413,
      "PAYLOAD_TOO_LARGE",
    );
    // Bytes, not characters: 600,000 two-byte characters.
    const wide = { type: "Tool", input: JSON.stringify("é".repeat(600_000)), output: "{}" };
    expect(JSON.stringify(wide).length).toBeLessThan(MB);
    await expectError(await postTrace(h, traceBody(h, {}, [stepSpan({ content: wide })])), 413, "PAYLOAD_TOO_LARGE");
    // The string as sent counts, whitespace included.
    const padded = `${JSON.stringify(stepSpan().content)}${" ".repeat(MB)}`;
    await expectError(await postTrace(h, traceBody(h, {}, [stepSpan({ content: padded })])), 413, "PAYLOAD_TOO_LARGE");
  });

  it("404 RESOURCE_NOT_FOUND for a promptId or deploymentId not in the project", async () => {
    const h = use();
    const elsewhere = await newProject(h);
    const foreign = await newDeployment(h, elsewhere);
    const local = await newDeployment(h);
    const cases: Body[] = [
      traceBody(h, {}, [stepSpan({ promptId: missingId("prompt") })]),
      traceBody(h, {}, [stepSpan({ promptId: foreign.promptId })]),
      traceBody(h, {}, [stepSpan({ deploymentId: missingId("deployment") })]),
      traceBody(h, {}, [stepSpan({ deploymentId: foreign.deploymentId })]),
      traceBody(h, {}, [stepSpan({ promptId: local.promptId }), stepSpan({ promptId: foreign.promptId })]),
    ];
    for (const body of cases) await expectError(await postTrace(h, body), 404, "RESOURCE_NOT_FOUND");
    // A deployment without its prompt named is fine.
    await createTrace(h, traceBody(h, {}, [stepSpan({ deploymentId: local.deploymentId })]));
  });

  it("400 VALIDATION_ERROR for a deploymentId of another prompt than the span's promptId", async () => {
    const h = use();
    const first = await newDeployment(h);
    const otherPrompt = await newPrompt(h);
    const reply = await postTrace(
      h,
      traceBody(h, {}, [
        stepSpan({ promptId: first.promptId, deploymentId: first.deploymentId }),
        stepSpan({ promptId: otherPrompt, deploymentId: first.deploymentId }),
      ]),
    );
    await expectError(reply, 400, "VALIDATION_ERROR");
    expect(detailFields(reply)).toEqual(["spans.1.deploymentId"]);
    // Listed with the request's other breaches.
    const both = await postTrace(
      h,
      traceBody(h, { endedAt: T0 }, [stepSpan({ promptId: otherPrompt, deploymentId: first.deploymentId })]),
    );
    await expectError(both, 400, "VALIDATION_ERROR");
    expect(detailFields(both)).toEqual(["spans.0.deploymentId", "trace.endedAt"]);
  });

  it("409 CONFLICT for a trace referenceId already used in the project; nothing of the request is stored", async () => {
    const h = use();
    const projectId = await newProject(h);
    const referenceId = uniqueRef("dup");
    await createTrace(h, traceBody(h, { referenceId }, [stepSpan()], projectId));
    const again = await postTrace(h, traceBody(h, { referenceId }, [stepSpan(), modelSpan()], projectId));
    await expectError(again, 409, "CONFLICT");
    expect(await countRows(h, "logTraces", projectId)).toBe(1);
    expect(await countRows(h, "logSpans", projectId)).toBe(1);
    // The same referenceId in another project is another trace.
    await createTrace(h, traceBody(h, { referenceId }));
  });

  it("answers the first of 400, 413, 404, 409 when several apply", async () => {
    const h = use();
    const referenceId = uniqueRef("taken");
    await createTrace(h, traceBody(h, { referenceId }));
    const { promptId, deploymentId } = await newDeployment(h);
    const otherPrompt = await newPrompt(h);
    const huge = toolContentOfBytes(MB + 1);
    const unknownPrompt = missingId("prompt");

    // 409 alone, then with a 404, a 413 and a 400 added one by one.
    await expectError(await postTrace(h, traceBody(h, { referenceId }, [stepSpan()])), 409, "CONFLICT");
    const notFound = traceBody(h, { referenceId }, [stepSpan({ promptId: unknownPrompt })]);
    await expectError(await postTrace(h, notFound), 404, "RESOURCE_NOT_FOUND");
    const tooLarge = traceBody(h, { referenceId }, [
      stepSpan({ promptId: unknownPrompt }),
      stepSpan({ content: huge }),
    ]);
    await expectError(await postTrace(h, tooLarge), 413, "PAYLOAD_TOO_LARGE");
    const invalid = traceBody(h, { referenceId, endedAt: T0 }, tooLarge.spans);
    await expectError(await postTrace(h, invalid), 400, "VALIDATION_ERROR");
    // A deployment of another prompt (a 400 found in the database) comes before 413 and 404 too.
    const mismatch = traceBody(h, { referenceId }, [
      stepSpan({ promptId: otherPrompt, deploymentId }),
      stepSpan({ content: huge, promptId }),
      stepSpan({ promptId: unknownPrompt }),
    ]);
    const reply = await postTrace(h, mismatch);
    await expectError(reply, 400, "VALIDATION_ERROR");
    expect(detailFields(reply)).toEqual(["spans.0.deploymentId"]);
    // 413 before an unknown project's 404.
    await expectError(
      await postTrace(h, traceBody(h, {}, [stepSpan({ content: huge })], missingId("project"))),
      413,
      "PAYLOAD_TOO_LARGE",
    );
  });
});
