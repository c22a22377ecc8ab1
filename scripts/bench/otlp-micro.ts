/**
 * An in-process micro-measure of OTLP ingestion's CPU per span, without HTTP or storage: protobuf decoding,
 * OTLP/JSON reading, and mapping (with the split of its origin attributes), on the bench's 5-Model-span request
 * (`tsx scripts/bench/otlp-micro.ts`).
 */
import { decodeTraceRequest, decodeTraceRequestWithFromBinary, readTraceRequestJson } from "@pharos/otlp";
import { mapSpan } from "../../apps/server/src/services/otel/otel-span.ts";
import { originSplitter } from "../../apps/server/src/services/otel/span-origins.ts";
import { otlpBodyTemplate, SPANS_PER_TRACE } from "./payload.ts";

const body = new Uint8Array(Buffer.from(otlpBodyTemplate(Date.now()).base64, "base64"));
const request = decodeTraceRequest(body);
const json = JSON.stringify(
  {
    resourceSpans: request.resourceSpans.map((resourceSpans) => ({
      resource: {
        attributes: [...resourceSpans.resource].map(([key, value]) => ({ key, value: { stringValue: value } })),
      },
      scopeSpans: resourceSpans.scopeSpans.map((scopeSpans) => ({
        scope: { name: scopeSpans.scope.name, version: scopeSpans.scope.version },
        spans: scopeSpans.spans.map((span) => ({
          ...span,
          startTimeUnixNano: String(span.startTimeUnixNano),
          endTimeUnixNano: String(span.endTimeUnixNano),
          attributes: [...span.attributes].map(([key, value]) => ({
            key,
            value:
              typeof value === "string"
                ? { stringValue: value }
                : typeof value === "boolean"
                  ? { boolValue: value }
                  : Number.isInteger(value)
                    ? { intValue: value }
                    : { doubleValue: value },
          })),
        })),
      })),
    })),
  },
  (_, value) => (typeof value === "bigint" ? String(value) : value),
);

function measure(label: string, perRequest: () => void, rounds = 5, iterations = 2_000): void {
  for (let i = 0; i < iterations; i++) perRequest();
  const samples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) perRequest();
    samples.push(Number(process.hrtime.bigint() - start) / 1_000 / iterations / SPANS_PER_TRACE);
  }
  samples.sort((a, b) => a - b);
  process.stdout.write(
    `${label.padEnd(28)} ${samples[Math.floor(samples.length / 2)]?.toFixed(1)} µs/span (min ${samples[0]?.toFixed(1)})\n`,
  );
}

const [resourceSpans] = request.resourceSpans;
const spans = resourceSpans?.scopeSpans[0];
if (!resourceSpans || !spans) throw new Error("the bench request has no spans");
const { resource } = resourceSpans;
process.stdout.write(`request: ${body.length} bytes protobuf, ${json.length} bytes JSON, ${SPANS_PER_TRACE} spans\n`);
measure("protobuf decode (fromBinary)", () => decodeTraceRequestWithFromBinary(body));
measure("protobuf decode", () => decodeTraceRequest(body));
measure("OTLP/JSON parse + read", () => readTraceRequestJson(JSON.parse(json)));
measure("mapping", () => {
  const splitOrigin = originSplitter();
  for (const span of spans.spans) splitOrigin("project", mapSpan(span, resource, spans.scope).input.attributes ?? {});
});
