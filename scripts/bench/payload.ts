/**
 * The write payload of the benchmark: one trace with 5 Model spans, each with about 1 KB of JSON-string input
 * and output (the platform form, so the server also derives token counts), attributes and tags — about 14 KB.
 *
 * The body is serialized once; each request only splices a fresh `trace.referenceId` between a fixed prefix
 * and suffix, so no request is refused as a duplicate (409) and the load generator spends no time on JSON.
 */
import { randomBytes } from "node:crypto";
import { encodeTraceRequest, type OtlpTraceRequest, type OtlpValue } from "@pharos/otlp";

export const SPANS_PER_TRACE = 5;
const REFERENCE_MARK = "@@reference@@";

/** Deterministic filler prose of `length` characters (word-like, so it compresses and indexes like text). */
function prose(length: number, seed: number): string {
  const words = ["order", "shipping", "refund", "the", "customer", "asked", "about", "delivery", "status", "of"];
  let text = "";
  for (let i = seed; text.length < length; i++) text += `${words[(i * 7) % words.length]} `;
  return text.slice(0, length);
}

export function modelContent(index: number) {
  const input = JSON.stringify({
    messages: [
      { role: "system", content: [{ modality: "text", value: prose(340, index) }] },
      { role: "user", content: [{ modality: "text", value: prose(700, index + 3) }] },
    ],
  });
  const output = JSON.stringify({
    messages: [{ role: "assistant", content: [{ modality: "text", value: prose(1_060, index + 5) }] }],
    tokenUsage: { promptTokens: 230 + index, completionTokens: 210 + index, totalTokens: 440 + 2 * index },
  });
  return { type: "Model", provider: "openai", model: "gpt-4o-mini", input, output, cost: 0.000_42 };
}

/** The createLogTrace body for `projectId`, with a placeholder where each request's referenceId goes. */
export function traceBodyTemplate(projectId: string, startedAt: number): { prefix: string; suffix: string } {
  const spans = Array.from({ length: SPANS_PER_TRACE }, (_, index) => ({
    name: `llm-call-${index + 1}`,
    status: "success",
    startedAt: startedAt + 10 + index * 300,
    endedAt: startedAt + 300 + index * 300,
    content: modelContent(index),
    attributes: { "user.plan": "pro", "llm.attempt": index + 1, cached: false, region: "eu-west-1" },
    tags: ["production", "bench"],
  }));
  const body = {
    projectId,
    trace: {
      name: "support-chat",
      status: "success",
      startedAt,
      endedAt: startedAt + 2_000,
      referenceId: REFERENCE_MARK,
      sessionId: "bench-session",
      attributes: { "user.plan": "pro", "user.id": "user-4711", region: "eu-west-1", retries: 0 },
      tags: ["production", "bench"],
    },
    spans,
  };
  const [prefix, suffix] = JSON.stringify(body).split(REFERENCE_MARK) as [string, string];
  return { prefix, suffix };
}

/** A generator of unique referenceIds: a random run prefix and a counter. */
export function referenceIds(): () => string {
  const run = randomBytes(6).toString("base64url");
  let next = 0;
  return () => `bench-${run}-${(next++).toString(36)}`;
}

export const templateBytes = (template: { prefix: string; suffix: string }) =>
  Buffer.byteLength(template.prefix) + Buffer.byteLength(template.suffix) + "bench-xxxxxxxx-xxxxx".length;

/** The 16-byte trace id the OTLP template carries where each request puts a fresh one. */
const TRACE_ID_MARK = "f1e2d3c4b5a69788796a5b4c3d2e1f00";

/** GenAI `parts` of a platform message list (the benchmark's Model content, as an OTel GenAI span carries it). */
const genAiMessages = (json: string) =>
  JSON.stringify(
    (JSON.parse(json) as { messages: { role: string; content: { value: string }[] }[] }).messages.map((message) => ({
      role: message.role,
      parts: message.content.map((part) => ({ type: "text", content: part.value })),
    })),
  );

/**
 * The same trace as `traceBodyTemplate`, as an OTLP `ExportTraceServiceRequest` in protobuf: 5 GenAI chat spans
 * (the first the root, the others its children) with the same messages, usage and 4 attributes each. Each request
 * writes a fresh trace id at `offsets` (every span carries it), so every request is a trace of its own.
 */
export function otlpBodyTemplate(startedAt: number): { base64: string; offsets: number[] } {
  const ns = (ms: number) => BigInt(ms) * 1_000_000n;
  const spanId = (index: number) => `00000000000000${(index + 1).toString(16).padStart(2, "0")}`;
  const request: OtlpTraceRequest = {
    resourceSpans: [
      {
        resource: new Map([["service.name", "bench"]]),
        scopeSpans: [
          {
            scope: { name: "bench", version: "1.0.0", attributes: new Map() },
            spans: Array.from({ length: SPANS_PER_TRACE }, (_, index) => {
              const content = modelContent(index);
              const usage = (JSON.parse(content.output) as { tokenUsage: Record<string, number> }).tokenUsage;
              return {
                traceId: TRACE_ID_MARK,
                spanId: spanId(index),
                parentSpanId: index === 0 ? "" : spanId(0),
                traceState: "",
                name: `llm-call-${index + 1}`,
                kind: 3,
                startTimeUnixNano: ns(startedAt + 10 + index * 300),
                endTimeUnixNano: ns(startedAt + 300 + index * 300),
                attributes: new Map<string, OtlpValue>([
                  ["gen_ai.operation.name", "chat"],
                  ["gen_ai.provider.name", "openai"],
                  ["gen_ai.request.model", "gpt-4o-mini"],
                  ["gen_ai.input.messages", genAiMessages(content.input)],
                  ["gen_ai.output.messages", genAiMessages(content.output)],
                  ["gen_ai.usage.input_tokens", usage.promptTokens as number],
                  ["gen_ai.usage.output_tokens", usage.completionTokens as number],
                  ["gen_ai.usage.cost", content.cost],
                  ["user.plan", "pro"],
                  ["llm.attempt", index + 1],
                  ["cached", false],
                  ["region", "eu-west-1"],
                ]),
                events: [],
                links: [],
                status: { code: 1, message: "" },
                droppedAttributesCount: 0,
                droppedEventsCount: 0,
                droppedLinksCount: 0,
              };
            }),
          },
        ],
      },
    ],
  };
  const body = Buffer.from(encodeTraceRequest(request));
  const mark = Buffer.from(TRACE_ID_MARK, "hex");
  const offsets: number[] = [];
  for (let at = body.indexOf(mark); at >= 0; at = body.indexOf(mark, at + mark.length)) offsets.push(at);
  if (offsets.length !== SPANS_PER_TRACE)
    throw new Error(`the OTLP template holds its trace id ${offsets.length} times`);
  return { base64: body.toString("base64"), offsets };
}

/** A generator of unique 16-byte trace ids: a random run prefix and a counter. */
export function traceIds(): () => Buffer {
  const run = randomBytes(10);
  let next = 0;
  return () => {
    const id = Buffer.alloc(16);
    run.copy(id);
    id.writeUIntBE(++next, 10, 6);
    return id;
  };
}
