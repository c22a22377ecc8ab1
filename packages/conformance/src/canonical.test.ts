/** The drift test's comparison: equivalent spellings compare equal, real changes do not. */
import { describe, expect, it } from "vitest";
import { canonicalOperation, canonicalSchema, diff } from "./canonical.ts";
import { bundle, type Json, type SpecOperation, specOperationById } from "./spec.ts";

const doc = (schemas: Json = {}): Json => ({ components: { schemas } });
const same = (a: unknown, b: unknown, document = doc()) =>
  diff("t", canonicalSchema(document, a), canonicalSchema(document, b));

describe("canonicalSchema: equivalent spellings compare equal", () => {
  it.each([
    ["nullable: true", { type: "string", nullable: true }, { anyOf: [{ type: "string" }, { type: "null" }] }],
    [
      "type: [X, null]",
      { type: ["string", "null"], maxLength: 3 },
      { anyOf: [{ type: "null" }, { type: "string", maxLength: 3 }] },
    ],
    ["const vs one-value enum", { type: "string", const: "a" }, { type: "string", enum: ["a"] }],
    ["enum order", { enum: ["b", "a"] }, { enum: ["a", "b"] }],
    ["required order", { type: "object", required: ["b", "a"] }, { type: "object", required: ["a", "b"] }],
    ["integer format", { type: "integer", format: "int64" }, { type: "integer" }],
    ["annotations", { type: "string", description: "d", examples: ["x"], title: "T", "x-foo": 1 }, { type: "string" }],
    ["empty properties", { type: "object", properties: {} }, { type: "object" }],
    ["additionalProperties: true", { type: "object", additionalProperties: true }, { type: "object" }],
    [
      "escaped slash in a pattern",
      { type: "string", pattern: "^https?:\\/\\/" },
      { type: "string", pattern: "^https?://" },
    ],
    ["allOf with an empty member", { allOf: [{ type: "string" }, {}] }, { type: "string" }],
    [
      "allOf of agreeing members",
      { allOf: [{ type: "object" }, { type: "object", minProperties: 1 }] },
      { type: "object", minProperties: 1 },
    ],
    [
      "maxProperties 0 of a closed empty object",
      { type: "object", additionalProperties: false, maxProperties: 0 },
      { type: "object", additionalProperties: false },
    ],
    [
      "a discriminated oneOf vs anyOf",
      {
        oneOf: [
          { type: "object", required: ["type"], properties: { type: { enum: ["a"] } } },
          { type: "object", required: ["type"], properties: { type: { enum: ["b"] } } },
        ],
        discriminator: { propertyName: "type" },
      },
      {
        anyOf: [
          { type: "object", required: ["type"], properties: { type: { const: "b" } } },
          { type: "object", required: ["type"], properties: { type: { const: "a" } } },
        ],
      },
    ],
  ])("%s", (_, a, b) => {
    expect(same(a, b)).toEqual([]);
  });

  it("inlines $refs and keeps a property that is named like an annotation", () => {
    const document = doc({ Name: { type: "string", maxLength: 5, description: "a name" } });
    const spec = { type: "object", properties: { description: { $ref: "#/components/schemas/Name" } } };
    const emitted = { type: "object", properties: { description: { type: "string", maxLength: 5 } } };
    expect(same(spec, emitted, document)).toEqual([]);
    expect(canonicalSchema(document, spec)).toEqual(emitted);
  });
});

describe("canonicalSchema: real differences are reported", () => {
  it.each([
    ["a changed bound", { type: "string", maxLength: 5 }, { type: "string", maxLength: 6 }, "/maxLength"],
    ["a lost bound", { type: "array", maxItems: 5 }, { type: "array" }, "/maxItems"],
    ["a changed type", { type: "integer" }, { type: "number" }, "/type"],
    ["an extra enum value", { enum: ["a"] }, { enum: ["a", "b"] }, "/enum"],
    ["a required property", { type: "object" }, { type: "object", required: ["a"] }, "/required/a"],
    ["nullability", { type: "string" }, { type: ["string", "null"] }, "/anyOf"],
    [
      "closed vs open object",
      { type: "object", additionalProperties: false },
      { type: "object" },
      "/additionalProperties",
    ],
    ["a string format", { type: "string", format: "uuid" }, { type: "string" }, "/format"],
    ["a default", { type: "integer", default: 50 }, { type: "integer", default: 20 }, "/default"],
  ])("%s", (_, a, b, path) => {
    const found = same(a, b);
    expect(found.map((d) => d.path)).toContain(path);
  });

  it("keeps a oneOf whose members may overlap", () => {
    const overlapping = { oneOf: [{ type: "string" }, { type: "string", maxLength: 3 }] };
    expect(canonicalSchema(doc(), overlapping)).toHaveProperty("oneOf");
  });
});

describe("canonicalOperation", () => {
  const listProjects = specOperationById.get("listProjects") as SpecOperation;
  const canonical = canonicalOperation(bundle, listProjects);

  it("collects parameters with their required flag, the body and each response", () => {
    expect(canonical.parameters["query:limit"]).toEqual({
      required: false,
      schema: { type: "integer", minimum: 1, maximum: 200, default: 50 },
    });
    expect(canonical.requestBody).toBeNull();
    expect(Object.keys(canonical.responses)).toEqual(["200", "400", "401", "403", "429", "500"]);
    expect(Object.keys(canonical.responses["429"]?.headers ?? {}).sort()).toEqual([
      "RateLimit",
      "RateLimit-Policy",
      "Retry-After",
      "X-Request-Id",
    ]);
  });

  it("reports a missing response status, a parameter made required and a changed body schema", () => {
    const changed = structuredClone(canonical);
    delete changed.responses["403"];
    (changed.parameters["query:limit"] as { required: boolean }).required = true;
    const body = changed.responses["200"]?.content["application/json"] as Json;
    (body.required as string[]).pop();
    const paths = diff("listProjects", canonical, changed).map((d) => d.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "/responses/403",
        "/parameters/query:limit/required",
        expect.stringMatching(/^\/responses\/200\/content\/application\/json\/required\//),
      ]),
    );
  });
});
