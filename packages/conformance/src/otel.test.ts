/**
 * OTLP/HTTP trace ingestion (POST /otel/v1/traces) through the client, every response validated against the
 * spec (a protobuf answer by its media type); every documented error provoked.
 */
import { encodeTraceRequest, readTraceRequestJson } from "@pharos/otlp";
import { beforeAll, describe, expect, it } from "vitest";
import { errorMatrixOf, itProvokedEveryDocumentedStatus, type Send } from "./cases.ts";
import { newProject, runTag, unknownId } from "./fixtures.ts";
import { expectError, expectStatus } from "./replies.ts";
import { useTarget } from "./target.ts";

const use = useTarget();
const itAnswersTheErrorMatrix = errorMatrixOf(use, () => projectId);
const run = runTag();

let projectId: string;
let ids = 0;
/** A fresh hex id of `bytes` bytes. */
const hexId = (bytes: number) =>
  `${run}${(++ids).toString(16)}${Date.now().toString(16)}`
    .replace(/[^0-9a-f]/g, "a")
    .padEnd(bytes * 2, "0")
    .slice(0, bytes * 2);

/** An hour ago, in ns. */
const T = BigInt(Date.now() - 3_600_000) * 1_000_000n;

const otlpJson = (resource: Record<string, string> = {}) => ({
  resourceSpans: [
    {
      resource: {
        attributes: Object.entries({ "service.name": "conformance", ...resource }).map(([key, value]) => ({
          key,
          value: { stringValue: value },
        })),
      },
      scopeSpans: [
        {
          scope: { name: "conformance" },
          spans: [
            {
              traceId: hexId(16),
              spanId: hexId(8),
              name: "chat gpt-4o-mini",
              kind: 3,
              startTimeUnixNano: String(T),
              endTimeUnixNano: String(T + 5_000_000n),
              attributes: [
                { key: "gen_ai.operation.name", value: { stringValue: "chat" } },
                { key: "gen_ai.provider.name", value: { stringValue: "openai" } },
                { key: "gen_ai.request.model", value: { stringValue: "gpt-4o-mini" } },
                { key: "gen_ai.usage.input_tokens", value: { intValue: "12" } },
                { key: "gen_ai.usage.output_tokens", value: { intValue: 5 } },
              ],
            },
          ],
        },
      ],
    },
  ],
});

beforeAll(async () => {
  projectId = (await newProject(use().client, `OTLP ${run}`)).id;
});

describe("exportOtelTraces", () => {
  const send: Send = (client, extra) =>
    client.POST("/otel/v1/traces", {
      params: { header: { "x-pharos-project-id": projectId } },
      body: otlpJson(),
      ...extra,
    });

  it("200 {} for OTLP/JSON; the span is found by search as a Model span", async () => {
    const { client } = use();
    const body = otlpJson();
    const reply = await client.POST("/otel/v1/traces", {
      params: { header: { "x-pharos-project-id": projectId } },
      body,
    });
    expectStatus(reply, 200);
    expect(reply.data).toEqual({});
    const traceId = body.resourceSpans[0]?.scopeSpans[0]?.spans[0]?.traceId as string;
    const found = await client.POST("/logs/spans", {
      body: {
        projectId,
        filters: [
          {
            column: "referenceId",
            operator: "equals",
            value: body.resourceSpans[0]?.scopeSpans[0]?.spans[0]?.spanId as string,
          },
        ],
      },
    });
    expectStatus(found, 200);
    expect(found.data?.spans[0]).toMatchObject({ contentType: "Model", promptTokens: 12, completionTokens: 5 });
    expect(traceId).toHaveLength(32);
  });

  it("200 for protobuf, answered in protobuf; the project from the resource attribute", async () => {
    const { client } = use();
    const bytes = encodeTraceRequest(readTraceRequestJson(otlpJson({ "pharos.project.id": projectId })));
    const reply = await client.POST("/otel/v1/traces", {
      body: "",
      bodySerializer: () => bytes,
      headers: { "Content-Type": "application/x-protobuf" },
      parseAs: "arrayBuffer",
    });
    expectStatus(reply, 200);
    expect(reply.response.headers.get("Content-Type")).toBe("application/x-protobuf");
  });

  it("400 VALIDATION_ERROR without a project, for a truncated protobuf body and for a wrong JSON type", async () => {
    const { client } = use();
    const noProject = await client.POST("/otel/v1/traces", { body: otlpJson() });
    expectError(noProject, 400, "VALIDATION_ERROR");
    expect(noProject.error?.error.message).toContain("x-pharos-project-id");
    const bytes = encodeTraceRequest(readTraceRequestJson(otlpJson()));
    const truncated = await client.POST("/otel/v1/traces", {
      params: { header: { "x-pharos-project-id": projectId } },
      body: "",
      bodySerializer: () => bytes.subarray(0, bytes.length - 4),
      headers: { "Content-Type": "application/x-protobuf" },
    });
    expectError(truncated, 400, "VALIDATION_ERROR");
    const wrongType = await client.POST("/otel/v1/traces", {
      params: { header: { "x-pharos-project-id": projectId } },
      body: { resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: 5 }] }] }] },
    });
    expectError(wrongType, 400, "VALIDATION_ERROR");
  });

  it("404 RESOURCE_NOT_FOUND for an unknown project", async () => {
    const reply = await use().client.POST("/otel/v1/traces", {
      params: { header: { "x-pharos-project-id": unknownId("project") } },
      body: otlpJson(),
    });
    expectError(reply, 404, "RESOURCE_NOT_FOUND");
  });

  itAnswersTheErrorMatrix({ access: "ingest", send, body: true });
});

itProvokedEveryDocumentedStatus(use, ["exportOtelTraces"]);
