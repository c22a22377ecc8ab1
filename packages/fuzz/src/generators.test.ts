/** The generator's own mechanics: slots found from the spec, mutations applied as described, JSON text as meant. */

import { requestBodyOf } from "@pharos/conformance/spec";
import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyMutations } from "./body/body-mutations.ts";
import { slotsOf } from "./body/slots.ts";
import { percentEncode } from "./requests/url-text.ts";
import { bundle, operationShapes, resolve, type SchemaObject, UNFUZZED_MEDIA_TYPES } from "./spec.ts";
import { RawJson, toJsonText, type Value } from "./values/json-value.ts";
import { valuesFor } from "./values/schema-values.ts";

const shape = (operationId: string) => {
  const found = operationShapes.find((s) => s.operationId === operationId);
  if (!found?.body) throw new Error(`${operationId} has no body`);
  return { schema: found.body.schema, example: found.body.examples[0] as Value };
};

describe("request media types", () => {
  it("fuzzes every operation's JSON body; any other media type is listed with the reason it is not fuzzed", () => {
    const others = operationShapes.flatMap((shape) =>
      Object.keys((requestBodyOf(bundle, shape.operation)?.content as object | undefined) ?? {}).filter(
        (type) => type !== "application/json",
      ),
    );
    expect(others).toContain("application/x-protobuf");
    expect(others.filter((type) => !(type in UNFUZZED_MEDIA_TYPES))).toEqual([]);
  });
});

describe("slotsOf", () => {
  it("finds every operation with a body a valid example and nested fields, optional ones included", () => {
    for (const operation of operationShapes.filter((s) => s.body)) {
      expect(operation.body?.examples.length, operation.operationId).toBeGreaterThan(0);
    }
    const { schema, example } = shape("createLogTrace");
    const paths = slotsOf(schema, example).map((slot) => slot.path.join("."));
    expect(paths).toEqual(
      expect.arrayContaining([
        "",
        "projectId",
        "trace.referenceId",
        "spans.0.content.model",
        "spans.1.parentReferenceId",
      ]),
    );
    // Optional fields the example leaves out are slots too, and a union is followed into the member it is.
    expect(paths).toContain("trace.endedAt");
    expect(paths).toContain("spans.0.content.variables.question.value");
  });
});

describe("applyMutations", () => {
  it("sets, removes and adds fields (even __proto__, as an own field) without touching the valid body", () => {
    const body: Value = { title: "t", icon: { type: "emoji", value: "x" } };
    const mutated = applyMutations(body, [
      { op: "set", path: ["icon", "value"], value: 1 },
      { op: "remove", path: ["title"] },
      { op: "add", path: [], key: "__proto__", value: { polluted: true } },
      { op: "set", path: ["missing", "deeper"], value: 2 },
    ]);
    expect(toJsonText(mutated)).toBe('{"icon":{"type":"emoji","value":1},"__proto__":{"polluted":true}}');
    expect(body).toEqual({ title: "t", icon: { type: "emoji", value: "x" } });
  });
});

describe("valuesFor", () => {
  it("fills an array at and beyond a large maxItems with empty items, so the count, not the body limit, is tested", () => {
    const { schema, example } = shape("exportOtelTraces");
    const field = (resolve(schema).properties as Record<string, SchemaObject>).resourceSpans as SchemaObject;
    const current = (example as { resourceSpans: Value }).resourceSpans;
    const drawn = fc.sample(valuesFor(field, { current }), { numRuns: 300, seed: 1 });
    const counts = new Set(drawn.filter(Array.isArray).map((value) => value.length));
    expect(counts).toContain(100_000);
    expect(counts).toContain(100_001);
    for (const value of drawn) expect(toJsonText(value).length).toBeLessThan(32 * 1024 * 1024);
    // Small counts keep the valid item.
    expect(drawn).toContainEqual(current);
  });
});

describe("JSON and URL text", () => {
  it("writes fragments verbatim and lone surrogates as escapes in JSON, as WTF-8 bytes in URLs", () => {
    expect(toJsonText({ n: new RawJson("9007199254740993"), z: new RawJson("-0"), s: "\ud800" })).toBe(
      '{"n":9007199254740993,"z":-0,"s":"\\ud800"}',
    );
    expect(percentEncode("a b/\ud800😀")).toBe("a%20b%2F%ED%A0%80%F0%9F%98%80");
  });
});
