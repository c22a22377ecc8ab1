import { expect, it } from "vitest";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore, type Harness } from "../../testing/harness.ts";
import {
  attributeIndex,
  type Body,
  createTrace,
  missingId,
  modelSpan,
  newDeployment,
  newProject,
  newPrompt,
  platformOutput,
  postSpan,
  stepSpan,
  storedSpans,
  storedTrace,
  T0,
  tagIndex,
  traceBody,
  uniqueRef,
} from "../../testing/log-write-fixtures.ts";

const MB = 1_048_576;

/** A trace with a referenceId and one Model span (cost 0.25, tokens 12/5). */
async function tracedRequest(h: Harness, projectId = h.projectId) {
  const referenceId = uniqueRef("trace");
  const created = await createTrace(
    h,
    traceBody(h, { referenceId }, [modelSpan({ referenceId: "span-llm-1" })], projectId),
  );
  return { referenceId, traceId: created.traceId, firstSpanId: created.spanIds[0] as string };
}

const spanBody = (h: Harness, span: Body, projectId = h.projectId): Body => ({ projectId, span });

describeEachStore("createLogSpan", (use) => {
  it("adds a span by traceId and by traceReferenceId (200); the trace's aggregates include it", async () => {
    const h = use();
    const { referenceId, traceId, firstSpanId } = await tracedRequest(h);
    const before = await storedTrace(h, traceId);

    const byId = await postSpan(
      h,
      spanBody(h, {
        ...modelSpan(
          { name: "second", referenceId: "span-llm-2", attributes: { "feedback.score": 5 }, tags: ["late", "late"] },
          {
            cost: 0.5,
            output: platformOutput(100, 40),
          },
        ),
        traceId,
      }),
    );
    expect(byId.status, JSON.stringify(byId.body)).toBe(200);
    expect(byId.body.spanId).toMatch(/^span_[0-9A-Z]{26}$/);
    const byReference = await postSpan(
      h,
      spanBody(h, { ...stepSpan({ name: "tool" }), traceReferenceId: referenceId }),
    );
    expect(byReference.status).toBe(200);
    const both = await postSpan(
      h,
      spanBody(h, { ...stepSpan({ name: "both" }, "Reranker"), traceId, traceReferenceId: referenceId }),
    );
    expect(both.status).toBe(200);

    const trace = await storedTrace(h, traceId);
    expect(trace?.spanIds).toEqual([firstSpanId, byId.body.spanId, byReference.body.spanId, both.body.spanId]);
    expect(trace).toMatchObject({ totalInputTokens: 112, totalOutputTokens: 45, latency: 2000 });
    expect(trace?.totalCost).toBeCloseTo(0.75, 12);
    expect(trace?.updatedAt).toBeGreaterThan(before?.updatedAt as number);
    expect(trace?.createdAt).toBe(before?.createdAt);

    const spans = await storedSpans(h, traceId);
    const second = spans.find((span) => span.id === byId.body.spanId);
    expect(second).toMatchObject({
      traceId,
      projectId: h.projectId,
      contentType: "Model",
      model: "gpt-4o-mini",
      provider: "openai",
      cost: 0.5,
      promptTokens: 100,
      completionTokens: 40,
      totalTokens: 140,
      referenceId: "span-llm-2",
      tags: ["late"],
    });
    expect(spans.find((span) => span.id === both.body.spanId)?.contentType).toBe("Reranker");
    expect(await attributeIndex(h, "span", byId.body.spanId)).toEqual({
      "feedback.score": {
        projectId: h.projectId,
        ownerKind: "span",
        ownerId: byId.body.spanId,
        textValue: null,
        numberValue: 5,
        booleanValue: null,
        startedAt: T0 + 100,
      },
    });
    expect(await tagIndex(h, "span", byId.body.spanId)).toEqual(["late"]);
  });

  it("does not check the start against the trace's nor the parent link (the parent may come later)", async () => {
    const h = use();
    const { traceId } = await tracedRequest(h);
    const early = await postSpan(
      h,
      spanBody(h, { ...stepSpan({ startedAt: T0 - 5000, endedAt: T0 - 4000, parentReferenceId: "not-yet" }), traceId }),
    );
    expect(early.status, JSON.stringify(early.body)).toBe(200);
  });

  it("accepts content as JSON text, stored as compact JSON", async () => {
    const h = use();
    const { traceId } = await tracedRequest(h);
    const text = '{ "type": "Retrieval", "input": "{}", "output": "[ ]" }';
    const reply = await postSpan(h, spanBody(h, { ...stepSpan({ content: text }), traceId }));
    expect(reply.status).toBe(200);
    const stored = (await storedSpans(h, traceId)).find((span) => span.id === reply.body.spanId);
    expect(stored?.content).toBe('{"type":"Retrieval","input":"{}","output":"[ ]"}');
  });

  it("400 VALIDATION_ERROR without traceId and traceReferenceId, and when both name different traces", async () => {
    const h = use();
    const first = await tracedRequest(h);
    const second = await tracedRequest(h);
    const neither = await postSpan(h, spanBody(h, stepSpan()));
    await expectError(neither, 400, "VALIDATION_ERROR");
    expect(neither.body.error.details.map((d: { field: string }) => d.field)).toEqual(["span.traceId"]);
    const mismatch = await postSpan(
      h,
      spanBody(h, { ...stepSpan(), traceId: first.traceId, traceReferenceId: second.referenceId }),
    );
    await expectError(mismatch, 400, "VALIDATION_ERROR");
    expect(mismatch.body.error.details.map((d: { field: string }) => d.field)).toEqual(["span.traceReferenceId"]);
    const unknownReference = await postSpan(
      h,
      spanBody(h, { ...stepSpan(), traceId: first.traceId, traceReferenceId: uniqueRef("nobody") }),
    );
    await expectError(unknownReference, 400, "VALIDATION_ERROR");
  });

  it("400 VALIDATION_ERROR when the span does not start strictly before it ends, and for invalid content", async () => {
    const h = use();
    const { traceId } = await tracedRequest(h);
    for (const span of [stepSpan({ endedAt: T0 + 1400 }), stepSpan({ endedAt: T0 + 1399 })]) {
      const reply = await postSpan(h, spanBody(h, { ...span, traceId }));
      await expectError(reply, 400, "VALIDATION_ERROR");
      expect(reply.body.error.details.map((d: { field: string }) => d.field)).toEqual(["span.endedAt"]);
    }
    const contents: unknown[] = [
      { type: "Tool", input: "nope", output: "{}" },
      '{"type":"Tool","input":"{}","output":"nope"}',
      "not json at all",
      { type: "Model", input: "{}", output: "{}" },
      { type: "ModelStream", provider: "p", model: "m", input: "{}", output: "x", aggregateOutput: "x" },
    ];
    for (const content of contents) {
      await expectError(await postSpan(h, spanBody(h, { ...stepSpan({ content }), traceId })), 400, "VALIDATION_ERROR");
    }
    const schemaBreaches: Body[] = [
      { ...stepSpan(), traceId: "trace_short" },
      { ...stepSpan({ startedAt: 1 }), traceId },
      { ...stepSpan({ status: "pending" }), traceId },
      { ...stepSpan(), traceId, unknown: 1 },
      { ...stepSpan(), traceReferenceId: "" },
    ];
    for (const span of schemaBreaches) await expectError(await postSpan(h, spanBody(h, span)), 400, "VALIDATION_ERROR");
    await expectError(await postSpan(h, { span: { ...stepSpan(), traceId } }), 400, "VALIDATION_ERROR");
  });

  it("400 VALIDATION_ERROR for a deploymentId of another prompt than the span's promptId", async () => {
    const h = use();
    const { traceId } = await tracedRequest(h);
    const { deploymentId, promptId } = await newDeployment(h);
    const otherPrompt = await newPrompt(h);
    const reply = await postSpan(h, spanBody(h, { ...stepSpan({ promptId: otherPrompt, deploymentId }), traceId }));
    await expectError(reply, 400, "VALIDATION_ERROR");
    expect(reply.body.error.details.map((d: { field: string }) => d.field)).toEqual(["span.deploymentId"]);
    const matching = await postSpan(h, spanBody(h, { ...stepSpan({ promptId, deploymentId }), traceId }));
    expect(matching.status).toBe(200);
    expect((await storedSpans(h, traceId)).find((span) => span.id === matching.body.spanId)).toMatchObject({
      promptId,
      deploymentId,
    });
  });

  it("413 PAYLOAD_TOO_LARGE for content over 1 MB", async () => {
    const h = use();
    const { traceId } = await tracedRequest(h);
    const huge = { type: "Tool", input: JSON.stringify("x".repeat(MB)), output: "{}" };
    await expectError(
      await postSpan(h, spanBody(h, { ...stepSpan({ content: huge }), traceId })),
      413,
      "PAYLOAD_TOO_LARGE",
    );
    await expectError(
      await postSpan(h, spanBody(h, { ...stepSpan({ content: JSON.stringify(huge) }), traceId })),
      413,
      "PAYLOAD_TOO_LARGE",
    );
    expect((await storedTrace(h, traceId))?.spanIds).toHaveLength(1);
  });

  it("404 RESOURCE_NOT_FOUND for an unknown trace, a trace of another project, and an unknown prompt or deployment", async () => {
    const h = use();
    const { traceId, referenceId } = await tracedRequest(h);
    const elsewhere = await newProject(h);
    const foreignTrace = await tracedRequest(h, elsewhere);
    const foreign = await newDeployment(h, elsewhere);
    const spans: [Body, string?][] = [
      [{ ...stepSpan(), traceId: missingId("trace") }],
      [{ ...stepSpan(), traceReferenceId: uniqueRef("nobody") }],
      [{ ...stepSpan(), traceId: foreignTrace.traceId }],
      [{ ...stepSpan(), traceReferenceId: foreignTrace.referenceId }],
      [{ ...stepSpan({ promptId: missingId("prompt") }), traceId }],
      [{ ...stepSpan({ promptId: foreign.promptId }), traceId }],
      [{ ...stepSpan({ deploymentId: missingId("deployment") }), traceReferenceId: referenceId }],
      [{ ...stepSpan({ deploymentId: foreign.deploymentId }), traceReferenceId: referenceId }],
    ];
    for (const [span, projectId] of spans) {
      await expectError(await postSpan(h, spanBody(h, span, projectId)), 404, "RESOURCE_NOT_FOUND");
    }
    expect((await storedTrace(h, traceId))?.spanIds).toHaveLength(1);
  });

  it("409 CONFLICT for a referenceId already used by a span of the trace; other traces may reuse it", async () => {
    const h = use();
    const { traceId, referenceId } = await tracedRequest(h);
    // Used by the span written with the trace.
    await expectError(
      await postSpan(h, spanBody(h, { ...stepSpan({ referenceId: "span-llm-1" }), traceId })),
      409,
      "CONFLICT",
    );
    const added = await postSpan(
      h,
      spanBody(h, { ...stepSpan({ referenceId: "added" }), traceReferenceId: referenceId }),
    );
    expect(added.status).toBe(200);
    await expectError(
      await postSpan(h, spanBody(h, { ...modelSpan({ referenceId: "added" }), traceId })),
      409,
      "CONFLICT",
    );
    const trace = await storedTrace(h, traceId);
    expect(trace?.spanIds).toHaveLength(2);
    expect(trace?.totalCost).toBeCloseTo(0.25, 12);
    const other = await tracedRequest(h);
    expect(
      (await postSpan(h, spanBody(h, { ...stepSpan({ referenceId: "added" }), traceId: other.traceId }))).status,
    ).toBe(200);
  });

  it("409 CONFLICT for a trace that already holds 10,000 spans", async () => {
    const h = use();
    const { traceId } = await tracedRequest(h);
    const full = Array.from({ length: 10_000 }, (_, i) => `span_${String(i).padStart(26, "0")}`);
    // Setting up 10,000 spans through the API would take minutes; the count is what the rule reads.
    await h.store.db
      .updateTable("logTraces")
      .set({ spanIds: JSON.stringify(full) })
      .where("id", "=", traceId)
      .execute();
    await expectError(await postSpan(h, spanBody(h, { ...stepSpan(), traceId })), 409, "CONFLICT");
    await h.store.db
      .updateTable("logTraces")
      .set({ spanIds: JSON.stringify(full.slice(1)) })
      .where("id", "=", traceId)
      .execute();
    expect((await postSpan(h, spanBody(h, { ...stepSpan(), traceId }))).status).toBe(200);
  });

  it("answers the first of 400, 413, 404, 409 when several apply", async () => {
    const h = use();
    const { traceId } = await tracedRequest(h);
    const huge = { type: "Tool", input: JSON.stringify("x".repeat(MB)), output: "{}" };
    const duplicate = stepSpan({ referenceId: "span-llm-1" });
    await expectError(await postSpan(h, spanBody(h, { ...duplicate, traceId })), 409, "CONFLICT");
    const withUnknownPrompt = { ...duplicate, promptId: missingId("prompt"), traceId };
    await expectError(await postSpan(h, spanBody(h, withUnknownPrompt)), 404, "RESOURCE_NOT_FOUND");
    await expectError(
      await postSpan(h, spanBody(h, { ...duplicate, traceId: missingId("trace") })),
      404,
      "RESOURCE_NOT_FOUND",
    );
    const tooLarge = { ...withUnknownPrompt, content: huge };
    await expectError(await postSpan(h, spanBody(h, tooLarge)), 413, "PAYLOAD_TOO_LARGE");
    await expectError(
      await postSpan(h, spanBody(h, { ...tooLarge, traceId: missingId("trace") })),
      413,
      "PAYLOAD_TOO_LARGE",
    );
    await expectError(await postSpan(h, spanBody(h, { ...tooLarge, endedAt: T0 })), 400, "VALIDATION_ERROR");
    const { deploymentId } = await newDeployment(h);
    const mismatch = await postSpan(
      h,
      spanBody(h, { ...duplicate, content: huge, traceId, promptId: await newPrompt(h), deploymentId }),
    );
    await expectError(mismatch, 400, "VALIDATION_ERROR");
  });
});
