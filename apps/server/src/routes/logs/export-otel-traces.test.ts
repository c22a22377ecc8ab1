import { decodeTraceResponse } from "@pharos/otlp";
import { expect, it } from "vitest";
import { describeEachStore, type Harness } from "../../testing/harness.ts";
import { countRows, newProject } from "../../testing/log-write-fixtures.ts";
import { hexId, jsonRequest, otlpFixture, PAIR, sendOtlp } from "../../testing/otel-fixtures.ts";

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
