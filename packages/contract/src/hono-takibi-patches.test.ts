/**
 * The rules of scripts/hono-takibi-patches.ts, one by one: what each does to the prepared copy of the bundle and
 * to hono-takibi's output (DESIGN.md, "The contract pipeline": the patch list stays small and pinned).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { discriminatorOf, patchGeneratedRoutes, prepareForHonoTakibi } from "../../../scripts/hono-takibi-patches.ts";
import { openapiDocument } from "./index.ts";

type Node = Record<string, unknown>;

const document = openapiDocument as unknown as Node;
const schemasOf = (doc: Node) => (doc.components as { schemas: Record<string, Node> }).schemas;
const object = (properties: Node, required = Object.keys(properties)): Node => ({
  type: "object",
  properties,
  required,
});
const withSchemas = (schemas: Record<string, Node>): Node => ({ components: { schemas } });
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Every schema object of `value` that has a `oneOf`, with its JSON pointer. */
function oneOfsOf(value: unknown, at = ""): [string, Node][] {
  if (Array.isArray(value)) return value.flatMap((item, i) => oneOfsOf(item, `${at}/${i}`));
  if (value === null || typeof value !== "object") return [];
  const node = value as Node;
  const own: [string, Node][] = Array.isArray(node.oneOf) ? [[at, node]] : [];
  return [...own, ...Object.entries(node).flatMap(([key, child]) => oneOfsOf(child, `${at}/${key}`))];
}

describe("prepareForHonoTakibi", () => {
  it("drops integer formats and spells out optional parameters", () => {
    const prepared = prepareForHonoTakibi({
      parameters: [{ in: "query", name: "limit", schema: { type: "integer", format: "int64", minimum: 1 } }],
    });
    expect(prepared.parameters).toEqual([
      { in: "query", name: "limit", required: false, schema: { type: "integer", minimum: 1 } },
    ]);
  });

  it("carries map limits in an extension", () => {
    const prepared = prepareForHonoTakibi({ map: { type: "object", additionalProperties: {}, maxProperties: 5 } });
    expect(prepared.map).toMatchObject({ "x-pharos-record-limits": { maxProperties: 5 } });
  });

  it("marks a oneOf with a declared discriminator, and leaves the mapping to zod-to-openapi", () => {
    const union = { oneOf: [ref("A"), ref("B")], discriminator: { propertyName: "kind", mapping: { a: "A" } } };
    const prepared = prepareForHonoTakibi(
      withSchemas({
        U: union,
        A: object({ kind: { enum: ["a"] } }),
        B: object({ kind: { enum: ["b"] } }),
      }),
    );
    expect(schemasOf(prepared).U).toEqual({ oneOf: union.oneOf, "x-oneOf-message": "x-pharos-discriminator:kind" });
  });

  it("makes the pattern of a catch-all member abort, beside a discriminated union on the same property", () => {
    const prepared = prepareForHonoTakibi(
      withSchemas({
        Content: { anyOf: [ref("Known"), ref("Custom")] },
        Known: { oneOf: [ref("A")], discriminator: { propertyName: "kind" } },
        A: object({ kind: { enum: ["a"] } }),
        Custom: object({ kind: { type: "string", pattern: "^(?!a$)" } }),
      }),
    );
    expect(schemasOf(prepared).Custom?.properties).toEqual({
      kind: { type: "string", pattern: "^(?!a$)", "x-pattern-message": "x-pharos-abort" },
    });
    expect(schemasOf(prepareForHonoTakibi(document)).SpanContentCustom?.properties).toMatchObject({
      type: { "x-pattern-message": "x-pharos-abort" },
    });
  });

  it("marks every oneOf of the spec (LogFilter by the property that tells its members apart)", () => {
    const prepared = prepareForHonoTakibi(document);
    const unions = oneOfsOf(prepared);
    expect(unions.length).toBeGreaterThan(10);
    for (const [at, union] of unions) {
      expect(union["x-oneOf-message"], at).toMatch(/^x-pharos-discriminator:\w+$/);
      expect(union.discriminator, at).toBeUndefined();
    }
    expect(schemasOf(prepared).LogFilter?.["x-oneOf-message"]).toBe("x-pharos-discriminator:column");
  });
});

describe("discriminatorOf", () => {
  const unionOf = (schemas: Record<string, Node>) =>
    discriminatorOf(withSchemas(schemas), { oneOf: Object.keys(schemas).map(ref) });

  it("finds a property every member requires with values of its own, through members that are unions", () => {
    expect(
      unionOf({
        Text: {
          oneOf: [
            object({ column: { enum: ["name", "id"] }, op: { const: "eq" } }),
            object({ column: { enum: ["name"] }, op: { const: "in" } }),
          ],
        },
        Number: object({ column: { const: "cost" }, op: { const: "eq" } }),
      }),
    ).toBe("column");
  });

  it("finds none when values overlap between members, a member lacks them or may omit the property", () => {
    expect(
      unionOf({ A: object({ kind: { enum: ["a", "b"] } }), B: object({ kind: { enum: ["b"] } }) }),
    ).toBeUndefined();
    expect(unionOf({ A: object({ kind: { enum: ["a"] } }), B: object({ kind: { type: "string" } }) })).toBeUndefined();
    expect(unionOf({ A: object({ kind: { enum: ["a"] } }), B: object({ kind: { enum: ["b"] } }, []) })).toBeUndefined();
  });
});

describe("patchGeneratedRoutes", () => {
  it("turns a marked z.xor into z.discriminatedUnion, one line or one member per line", () => {
    expect(
      patchGeneratedRoutes(`  value: z.xor([ASchema, BSchema], { error: 'x-pharos-discriminator:type' }),\n`),
    ).toBe(`  value: z.discriminatedUnion('type', [ASchema, BSchema]),\n`);
    const multiline = `export const U = z\n  .xor(\n    [\n      ASchema,\n      BSchema,\n    ],\n    { error: "x-pharos-discriminator:modality" },\n  )\n  .openapi('U')\n`;
    expect(patchGeneratedRoutes(multiline)).toBe(
      `export const U = z\n  .discriminatedUnion('modality', [\n    ASchema,\n    BSchema,\n  ])\n  .openapi('U')\n`,
    );
  });

  it("leaves an unmarked z.xor alone and fails on a mark it cannot place", () => {
    expect(patchGeneratedRoutes("z.xor([ASchema, BSchema])")).toBe("z.xor([ASchema, BSchema])");
    expect(() => patchGeneratedRoutes("z.xor([z.object({}), B], { error: 'x-pharos-discriminator:type' })")).toThrow(
      /not generated as z\.xor/,
    );
  });

  it("turns an abort mark into an aborting pattern check", () => {
    expect(patchGeneratedRoutes("z.string().regex(/^(?!a$)/, { error: 'x-pharos-abort' }).max(64)")).toBe(
      "z.string().regex(/^(?!a$)/, { abort: true }).max(64)",
    );
  });

  it("checks format uri as RFC 3986 beside z.url(), and parses integer parameters from digits only", () => {
    const code = `import { z } from '@hono/zod-openapi'\nexport const U = z.url().max(2048)\nexport const L = z.coerce\n  .number()\n  .pipe(z.int())\n`;
    const patched = patchGeneratedRoutes(code);
    expect(patched).toContain("export const U = z.url().refine(...uriCheck).max(2048)");
    expect(patched).toContain("export const L = z.string().regex(...integerText).transform(Number)\n  .pipe(z.int())");
    expect(patched).toContain(`import { uriCheck } from "../formats.ts";`);
    expect(patched).toContain(`import { integerText } from "../formats.ts";`);
  });

  it("turns a record-limits mark into a refinement", () => {
    const code = `import { z } from '@hono/zod-openapi'\nexport const M = z.record(z.string(), z.string()).openapi({ 'x-pharos-record-limits': { maxProperties: 5 }, description: 'm' })\n`;
    expect(patchGeneratedRoutes(code)).toContain(
      ".refine(...recordWithin({ maxProperties: 5 })).openapi({ ...{ maxProperties: 5 }, description: 'm' })",
    );
  });

  it("left no exclusive union in the generated routes", () => {
    const routes = readFileSync(new URL("./generated/routes.ts", import.meta.url), "utf8");
    expect(routes).not.toMatch(/\.xor\(/);
    expect(routes.match(/\.discriminatedUnion\(/g)?.length).toBe(oneOfsOf(document).length);
  });
});
