/**
 * The write payload of the benchmark: one trace with 5 Model spans, each with about 1 KB of JSON-string input
 * and output (the platform form, so the server also derives token counts), attributes and tags — about 14 KB.
 *
 * The body is serialized once; each request only splices a fresh `trace.referenceId` between a fixed prefix
 * and suffix, so no request is refused as a duplicate (409) and the load generator spends no time on JSON.
 */
import { randomBytes } from "node:crypto";

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
