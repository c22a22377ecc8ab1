/**
 * The mapping checks the content it builds without parsing its input and output again (checkBuiltContent): the
 * result must be what checkContent gives for the same content, for every captured span and for Model spans whose
 * usage comes in every form the conventions read (numbers, digits, fractions, -0, huge).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import type { schemas } from "@pharos/contract";
import { decodeTraceRequest, type OtlpSpan, type OtlpValue, readTraceRequestJson } from "@pharos/otlp";
import { describe, expect, it } from "vitest";
import { checkContent } from "../logs/span-content.ts";
import { mapSpan } from "./otel-span.ts";

const FIXTURES = new URL("../../testing/fixtures/otlp/", import.meta.url).pathname;

function capturedRequests() {
  const found: [string, ReturnType<typeof decodeTraceRequest>][] = [];
  const walk = (directory: string) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".pb")) found.push([entry.name, decodeTraceRequest(readFileSync(path))]);
      else if (entry.name.endsWith(".json.gz")) {
        found.push([entry.name, readTraceRequestJson(JSON.parse(gunzipSync(readFileSync(path)).toString("utf8")))]);
      }
    }
  };
  walk(FIXTURES);
  return found;
}

/** mapSpan's checked content equals checkContent's, on the content it stores. */
function expectSameCheck(span: OtlpSpan, resource = new Map<string, OtlpValue>()) {
  const { content } = mapSpan(span, resource, { name: "scope", version: "1", attributes: new Map() });
  const issues: unknown[] = [];
  const reference = checkContent(JSON.parse(content.json) as schemas.LogSpanContentInput, "content", issues as never);
  expect(issues).toEqual([]);
  // The cost is read from the content object, unparsed, on both paths: a -0 the price gives stays -0 there, where
  // the JSON text read back here has 0.
  expect({ ...content, cost: content.cost === 0 ? 0 : content.cost }).toEqual(reference);
  return content;
}

const modelSpan = (attributes: [string, OtlpValue][]): OtlpSpan => ({
  traceId: "5b8efff798038103d269b633813fc60c",
  spanId: "eee19b7ec3c1b174",
  parentSpanId: "",
  traceState: "",
  name: "chat",
  kind: 3,
  startTimeUnixNano: 1_732_190_400_000_000_000n,
  endTimeUnixNano: 1_732_190_401_000_000_000n,
  attributes: new Map<string, OtlpValue>([
    ["gen_ai.operation.name", "chat"],
    ["gen_ai.provider.name", "openai"],
    ["gen_ai.request.model", "gpt-4o-mini"],
    ["gen_ai.input.messages", JSON.stringify([{ role: "user", parts: [{ type: "text", content: "hi" }] }])],
    ...attributes,
  ]),
  events: [],
  links: [],
  status: { code: 0, message: "" },
  droppedAttributesCount: 0,
  droppedEventsCount: 0,
  droppedLinksCount: 0,
});

describe("mapSpan's content check", () => {
  const requests = capturedRequests();

  it("finds the captured requests", () => {
    expect(requests.length).toBeGreaterThanOrEqual(6);
  });

  it.each(requests)("is checkContent's for every span of %s", (_, request) => {
    let spans = 0;
    for (const resourceSpans of request.resourceSpans) {
      for (const scopeSpans of resourceSpans.scopeSpans) {
        for (const span of scopeSpans.spans) {
          expectSameCheck(span, resourceSpans.resource);
          spans += 1;
        }
      }
    }
    expect(spans).toBeGreaterThan(0);
  });

  it.each([
    ["numbers", 12, 7, undefined],
    ["digits", "12", "7", "19"],
    ["fractions", 1.5, 2.25, 3.75],
    ["negative zero", -0, -0, -0],
    ["huge", 1e30, 2 ** 60, Number.MAX_VALUE],
    ["only output", undefined, 4, undefined],
    ["none", undefined, undefined, undefined],
  ] as const)("is checkContent's for usage as %s", (_, input, output, total) => {
    const usage: [string, OtlpValue][] = [];
    if (input !== undefined) usage.push(["gen_ai.usage.input_tokens", input]);
    if (output !== undefined) usage.push(["gen_ai.usage.output_tokens", output]);
    if (total !== undefined) usage.push(["llm.usage.total_tokens", total]);
    const content = expectSameCheck(modelSpan(usage));
    expect(content.type).toBe("Model");
  });

  it("is checkContent's for a span whose attributes overflow into the content's input", () => {
    const many = Array.from({ length: 150 }, (_, index) => [`extra.${index}`, "x".repeat(index)] as [string, string]);
    const content = expectSameCheck(modelSpan([["gen_ai.usage.input_tokens", 3], ...many]));
    expect(JSON.parse(JSON.parse(content.json).input).otel.attributes).toBeDefined();
  });
});

describe("mapSpan's Pharos attributes", () => {
  it("maps pharos.variables and pharos.variables.<name> to a Model span's variables, checkContent's", () => {
    const span = modelSpan([
      ["pharos.prompt.id", "prompt_1"],
      ["pharos.deployment.id", "deployment_1"],
      ["pharos.run_evaluation", "TRUE"],
      [
        "pharos.variables",
        JSON.stringify({ question: "hi", photo: { modality: "image", value: "https://x/y.png" }, count: 3 }),
      ],
      ["pharos.variables.question", "hello"],
      ["pharos.variables.list", ["a", "b"]],
      [`pharos.variables.${"n".repeat(129)}`, "too long a name"],
    ]);
    const content = expectSameCheck(span);
    expect(JSON.parse(content.json).variables).toEqual({
      question: { modality: "text", value: "hello" },
      photo: { modality: "image", value: "https://x/y.png" },
      count: { modality: "text", value: "3" },
      list: { modality: "text", value: '["a","b"]' },
    });
    const mapped = mapSpan(span, new Map(), { name: "scope", version: "1", attributes: new Map() });
    expect(mapped).toMatchObject({ promptReference: "prompt_1", deploymentReference: "deployment_1" });
    expect(mapped.input.runEvaluation).toBe(true);
    expect(mapped.input.promptId).toBeUndefined();
    expect(Object.keys(mapped.input.attributes ?? {}).filter((key) => key.startsWith("pharos."))).toEqual([
      "pharos.prompt.id",
      "pharos.deployment.id",
      "pharos.run_evaluation",
    ]);
  });

  it("keeps pharos.variables that is not a JSON object as an attribute; no flag, no runEvaluation", () => {
    const mapped = mapSpan(modelSpan([["pharos.variables", "not json"]]), new Map(), {
      name: "s",
      version: "",
      attributes: new Map(),
    });
    expect(JSON.parse(mapped.content.json).variables).toBeUndefined();
    expect(mapped.input.attributes?.["pharos.variables"]).toBe("not json");
    expect(mapped.input.runEvaluation).toBeUndefined();
  });

  it("leaves the variable attributes of a span that is not a Model span among its attributes", () => {
    const span = { ...modelSpan([]), attributes: new Map<string, OtlpValue>([["pharos.variables.word", "ships"]]) };
    const mapped = mapSpan(span, new Map(), { name: "s", version: "", attributes: new Map() });
    expect(mapped.content.type).toBe("Other");
    expect(mapped.input.attributes?.["pharos.variables.word"]).toBe("ships");
  });
});
