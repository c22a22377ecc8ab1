/**
 * OTLP request bodies for the tests of `POST /otel/v1/traces`: bodies captured from real exporters (the OTel JS
 * SDK's protobuf and JSON exporters, the Vercel AI SDK's and OpenInference's telemetry against the fake
 * provider) in fixtures/otlp/, and a builder of OTLP/JSON requests.
 */
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import type { Harness, Reply } from "./harness.ts";

const FIXTURES = new URL("./fixtures/otlp/", import.meta.url);

/** A captured body, by its file name under fixtures/otlp/ (e.g. `otlp-proto-parent.pb`, `genai/openinference-chat.pb`). */
export const otlpFixture = (name: string): Buffer => readFileSync(new URL(name, FIXTURES));

/**
 * The captured parent/child pair: a `chat gpt-4o-mini` client span (GenAI conventions, 12/7 tokens) and its child
 * `tool lookup` (status ERROR "boom", one event), each pair with its own trace id per encoding.
 */
export const PAIR = {
  protobuf: { traceId: "04f829f0a296bb42fddfbeb7f574eb54", parent: "fbe787f60750812e", child: "15eb903ab46e30a9" },
  json: { traceId: "1f2af822ce534d47f5edec49dfa1d3c8", parent: "7cb29e3572d99b86", child: "003b2a549082489e" },
} as const;

export type OtlpEncoding = "protobuf" | "json";

export interface OtlpSend {
  body: Uint8Array | string;
  encoding?: OtlpEncoding;
  gzip?: boolean;
  key?: string | null;
  projectId?: string | null;
  headers?: Record<string, string>;
}

/** Sends an OTLP export; the reply's body is JSON when the response is JSON, else its bytes. */
export async function sendOtlp(h: Harness, send: OtlpSend): Promise<Reply> {
  const encoding = send.encoding ?? (typeof send.body === "string" ? "json" : "protobuf");
  const headers: Record<string, string> = {
    "Content-Type": encoding === "json" ? "application/json" : "application/x-protobuf",
    ...send.headers,
  };
  const key = send.key === undefined ? h.key : send.key;
  if (key !== null) headers.Authorization = `Bearer ${key}`;
  const projectId = send.projectId === undefined ? h.projectId : send.projectId;
  if (projectId !== null) headers["x-pharos-project-id"] = projectId;
  let body: Uint8Array = typeof send.body === "string" ? Buffer.from(send.body) : send.body;
  if (send.gzip) {
    body = gzipSync(body);
    headers["Content-Encoding"] = "gzip";
  }
  const response = await h.app.request("/v2/otel/v1/traces", {
    method: "POST",
    headers,
    body: body as Uint8Array<ArrayBuffer>,
  });
  const type = response.headers.get("Content-Type") ?? "";
  const bytes = new Uint8Array(await response.arrayBuffer());
  return {
    status: response.status,
    headers: response.headers,
    body: type.includes("json") ? JSON.parse(Buffer.from(bytes).toString("utf8")) : bytes,
  };
}

type Value = Record<string, unknown>;

/** An OTLP/JSON AnyValue of a plain value. */
export function anyValue(value: unknown): Value {
  if (typeof value === "string") return { stringValue: value };
  if (typeof value === "boolean") return { boolValue: value };
  if (typeof value === "number") return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value };
  if (Array.isArray(value)) return { arrayValue: { values: value.map(anyValue) } };
  if (value !== null && typeof value === "object") {
    return { kvlistValue: { values: Object.entries(value).map(([key, item]) => ({ key, value: anyValue(item) })) } };
  }
  return {};
}

export const keyValues = (attributes: Record<string, unknown>) =>
  Object.entries(attributes).map(([key, value]) => ({ key, value: anyValue(value) }));

let ids = 0;
/** A fresh hex id of `bytes` bytes. */
export const hexId = (bytes: 8 | 16) =>
  `${(++ids).toString(16).padStart(8, "0")}${process.pid.toString(16).padStart(8, "0")}${Date.now().toString(16)}`
    .padEnd(bytes * 2, "a")
    .slice(0, bytes * 2);

/** 2024-11-21T12:00:00Z in ns, the tests' clock. */
export const NS0 = 1_732_190_400_000n * 1_000_000n;

export interface JsonSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name?: string;
  startMs?: number;
  endMs?: number;
  attributes?: Record<string, unknown>;
  status?: { code?: number; message?: string };
  [field: string]: unknown;
}

/** An OTLP/JSON request of `spans` under one resource. */
export function jsonRequest(spans: JsonSpan[], resource: Record<string, unknown> = { "service.name": "test" }): Value {
  return {
    resourceSpans: [
      {
        resource: { attributes: keyValues(resource) },
        scopeSpans: [
          {
            scope: { name: "test-scope", version: "1.0.0" },
            spans: spans.map(({ startMs = 100, endMs = 200, attributes = {}, name = "span", ...span }) => ({
              name,
              kind: 1,
              startTimeUnixNano: String(NS0 + BigInt(startMs) * 1_000_000n),
              endTimeUnixNano: String(NS0 + BigInt(endMs) * 1_000_000n),
              attributes: keyValues(attributes),
              ...span,
            })),
          },
        ],
      },
    ],
  };
}
