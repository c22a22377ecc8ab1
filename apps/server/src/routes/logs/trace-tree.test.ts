import { expect, it } from "vitest";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore, type Harness } from "../../testing/harness.ts";
import {
  createTrace,
  missingId,
  modelSpan,
  newProject,
  stepSpan,
  T0,
  traceBody,
} from "../../testing/log-write-fixtures.ts";

const tree = (h: Harness, projectId: string, traceId: string, key?: string) =>
  h.request("GET", `/projects/${projectId}/traces/${traceId}/tree`, { key });
const span = (h: Harness, projectId: string, spanId: string, key?: string) =>
  h.request("GET", `/projects/${projectId}/spans/${spanId}`, { key });

describeEachStore("getLogTraceTree and getLogSpan", (use) => {
  it("returns every span of the trace as a summary, oldest first, and one span in full", async () => {
    const h = use();
    const { traceId, spanIds } = await createTrace(
      h,
      traceBody(h, { referenceId: "agent-run" }, [
        stepSpan({ name: "agent", referenceId: "root", startedAt: T0, endedAt: T0 + 2000 }, "Function"),
        modelSpan({ referenceId: "llm", parentReferenceId: "root", startedAt: T0 + 100, endedAt: T0 + 1300 }),
        stepSpan({ parentReferenceId: "root", startedAt: T0 + 1400, endedAt: T0 + 1450, tags: ["slow"] }),
      ]),
    );
    // A span of another trace of the project is not part of the tree.
    await createTrace(h, traceBody(h, {}, [stepSpan()]));

    const reply = await tree(h, h.projectId, traceId);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.traceId).toBe(traceId);
    expect(reply.body.spans).toEqual([
      {
        id: spanIds[0],
        name: "agent",
        status: "success",
        contentType: "Function",
        startedAt: T0,
        endedAt: T0 + 2000,
        latency: 2000,
        referenceId: "root",
        parentReferenceId: null,
        promptId: null,
        model: null,
        provider: null,
        cost: null,
        promptTokens: null,
        completionTokens: null,
        totalTokens: null,
      },
      {
        id: spanIds[1],
        name: "llm-call",
        status: "success",
        contentType: "Model",
        startedAt: T0 + 100,
        endedAt: T0 + 1300,
        latency: 1200,
        referenceId: "llm",
        parentReferenceId: "root",
        promptId: null,
        model: "gpt-4o-mini",
        provider: "openai",
        cost: 0.25,
        promptTokens: 12,
        completionTokens: 5,
        totalTokens: 17,
      },
      expect.objectContaining({ id: spanIds[2], name: "lookup_order", contentType: "Tool", parentReferenceId: "root" }),
    ]);

    // The selected span in full: what the span search returns for it.
    const full = await span(h, h.projectId, spanIds[2] as string);
    expect(full.status, JSON.stringify(full.body)).toBe(200);
    const searched = await h.request("POST", "/logs/spans", {
      body: { projectId: h.projectId, logTraceId: traceId, sort: "startedAt:asc" },
    });
    expect(full.body).toEqual(searched.body.spans[2]);
    expect(full.body).toMatchObject({ logTraceId: traceId, tags: ["slow"], parsedContent: { type: "Tool" } });
  });

  it("a trace without spans is an empty tree", async () => {
    const h = use();
    const { traceId } = await createTrace(h, traceBody(h, {}, null));
    const reply = await tree(h, h.projectId, traceId);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toEqual({ traceId, spans: [] });
  });

  it("another project's trace or span, an unknown one or a project of another workspace is 404", async () => {
    const h = use();
    const { traceId, spanIds } = await createTrace(h, traceBody(h, {}, [stepSpan()]));
    const spanId = spanIds[0] as string;
    const otherProject = await newProject(h);
    await expectError(await tree(h, otherProject, traceId), 404, "RESOURCE_NOT_FOUND");
    await expectError(await span(h, otherProject, spanId), 404, "RESOURCE_NOT_FOUND");
    await expectError(await tree(h, h.projectId, missingId("trace")), 404, "RESOURCE_NOT_FOUND");
    await expectError(await span(h, h.projectId, missingId("span")), 404, "RESOURCE_NOT_FOUND");
    // A span id is not a trace id, and the other way round.
    await expectError(await tree(h, h.projectId, spanId), 404, "RESOURCE_NOT_FOUND");
    await expectError(await span(h, h.projectId, traceId), 404, "RESOURCE_NOT_FOUND");
    const other = await h.otherWorkspace();
    await expectError(await tree(h, h.projectId, traceId, other.key), 404, "RESOURCE_NOT_FOUND");
    await expectError(await span(h, h.projectId, spanId, other.key), 404, "RESOURCE_NOT_FOUND");
  });

  it("a malformed trace or span id is 400", async () => {
    const h = use();
    await expectError(await tree(h, h.projectId, "trace_1"), 400, "VALIDATION_ERROR");
    await expectError(await span(h, h.projectId, "span_1"), 400, "VALIDATION_ERROR");
    await expectError(await tree(h, h.projectId, `trace_${"0".repeat(80)}`), 400, "VALIDATION_ERROR");
  });

  it("read-only keys read; ingest-only keys and keys restricted to other projects get 403", async () => {
    const h = use();
    const { traceId, spanIds } = await createTrace(h, traceBody(h, {}, [stepSpan()]));
    const spanId = spanIds[0] as string;
    const reader = await h.newKey("read-only");
    expect((await tree(h, h.projectId, traceId, reader)).status).toBe(200);
    expect((await span(h, h.projectId, spanId, reader)).status).toBe(200);
    const ingester = await h.newKey("ingest-only");
    await expectError(await tree(h, h.projectId, traceId, ingester), 403, "FORBIDDEN");
    await expectError(await span(h, h.projectId, spanId, ingester), 403, "FORBIDDEN");
    const elsewhere = await h.newKey("full", [await newProject(h)]);
    await expectError(await tree(h, h.projectId, traceId, elsewhere), 403, "FORBIDDEN");
    await expectError(await span(h, h.projectId, spanId, elsewhere), 403, "FORBIDDEN");
  });
});
