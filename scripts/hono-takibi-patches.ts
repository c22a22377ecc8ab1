/**
 * The few rules that make hono-takibi's output match the spec (DESIGN.md, "The contract pipeline";
 * docs/adr/0003): integer formats, optional parameters, map limits, discriminated unions and the pattern of a
 * union's catch-all member (these two decide what a validation error names), `format: uri` and integer
 * parameters read as the spec means them. Each exists because of a gap seen
 * with hono-takibi 0.9.995; the contract tests prove the generated schemas enforce what the spec says, so a
 * generator upgrade that closes a gap shows up there, and hono-takibi-patches.test.ts pins each rule's output.
 */

type Node = Record<string, unknown>;

const RECORD_LIMITS = "x-pharos-record-limits";
/** hono-takibi passes `x-oneOf-message` as the union's error option: it carries a discriminator through. */
const DISCRIMINATOR_MARK = "x-pharos-discriminator:";
/** …and `x-pattern-message` as the pattern check's: it makes the check abort. */
const ABORT_MARK = "x-pharos-abort";

function walk(value: unknown, visit: (node: Node) => void): void {
  if (Array.isArray(value)) {
    for (const item of value) walk(item, visit);
  } else if (value !== null && typeof value === "object") {
    visit(value as Node);
    for (const child of Object.values(value)) walk(child, visit);
  }
}

const isSchemaWithLimits = (node: Node) =>
  node.maxProperties !== undefined ||
  node.minProperties !== undefined ||
  (node.propertyNames as Node | undefined)?.maxLength !== undefined ||
  (node.propertyNames as Node | undefined)?.minLength !== undefined;

/** A copy of the bundle rewritten into the subset hono-takibi translates faithfully. */
export function prepareForHonoTakibi(document: Node): Node {
  const copy = structuredClone(document);
  walk(copy, (node) => {
    // int64/int32 integers become zod bigints, which reject JSON numbers: plain integers keep the bounds.
    const type = node.type;
    if ((type === "integer" || (Array.isArray(type) && type.includes("integer"))) && typeof node.format === "string") {
      delete node.format;
    }
    // Optional parameters must say so, or some of them are generated as required.
    if (typeof node.in === "string" && typeof node.name === "string" && node.required === undefined) {
      node.required = false;
    }
    // Map size limits are dropped on records (and beside a $ref): carry them in an extension that
    // hono-takibi copies into `.openapi({...})`, where patchGeneratedRoutes turns it into a refinement.
    // Objects with declared properties keep their key counts, but lose key lengths too.
    const isRecord = node.properties === undefined && typeof node.additionalProperties === "object";
    const names = node.propertyNames as Node | undefined;
    const keyLengths = (names?.minLength ?? names?.maxLength) !== undefined && {
      propertyNames: { minLength: names?.minLength, maxLength: names?.maxLength },
    };
    if ((isRecord || typeof node.$ref === "string") && isSchemaWithLimits(node)) {
      node[RECORD_LIMITS] = {
        ...(node.maxProperties !== undefined && { maxProperties: node.maxProperties }),
        ...(node.minProperties !== undefined && { minProperties: node.minProperties }),
        ...keyLengths,
      };
    } else if (keyLengths && node.type === "object") {
      node[RECORD_LIMITS] = keyLengths;
    }
    // A oneOf becomes z.xor (hono-takibi emits z.discriminatedUnion only for inline members, and ours are
    // $refs), which answers a bad member with a bare "Invalid input". Where the members are told apart by a
    // discriminator, mark the union for patchGeneratedRoutes instead. The discriminator itself goes:
    // zod-to-openapi documents a discriminated union's discriminator from its members, whereas hono-takibi's
    // copy of the mapping loses every key that is also a schema keyword (the log filters' `contains`).
    const property = Array.isArray(node.oneOf) ? discriminatorOf(document, node) : undefined;
    if (property !== undefined) {
      node["x-oneOf-message"] = `${DISCRIMINATOR_MARK}${property}`;
      delete node.discriminator;
    }
    // An anyOf of a discriminated union and a catch-all member, which takes the other values of the
    // discriminator by a pattern (LogSpanContent: a SpanContent, or a SpanContentCustom of any other `type`).
    // zod's union reports the one member whose issues are all non-aborting checks as if it were the one meant, so
    // a built-in `Model` missing `provider` was reported as a custom kind whose name breaks the pattern. The
    // pattern aborts instead, and the validation hook reads the union's members (apps/server validation-hook.ts).
    if (Array.isArray(node.anyOf)) {
      // Read from the bundle (the copy loses its discriminators on the way), marked in the copy.
      const members = node.anyOf as Node[];
      for (const union of members.map((member) => resolve(document, member))) {
        const property = Array.isArray(union.oneOf) ? discriminatorOf(document, union) : undefined;
        if (property === undefined) continue;
        for (const member of members.map((other) => resolve(copy, other))) {
          const tag = (member.properties as Record<string, Node> | undefined)?.[property];
          const required = (member.required as string[] | undefined)?.includes(property);
          if (required && typeof tag?.pattern === "string") tag["x-pattern-message"] = ABORT_MARK;
        }
      }
    }
  });
  return copy;
}

/**
 * The property a oneOf's members are told apart by: its declared discriminator, else a property that every
 * member requires with values of its own (`enum`/`const`, disjoint between members; a member that is itself
 * a union contributes its members' values). LogFilter is such a union: selected by `column`, then by
 * `operator` within a column's group. With disjoint values, choosing the member by that property accepts
 * exactly what the oneOf accepts.
 */
export function discriminatorOf(document: Node, union: Node): string | undefined {
  const declared = (union.discriminator as Node | undefined)?.propertyName;
  if (typeof declared === "string") return declared;
  const members = (union.oneOf as Node[]).map((member) => leavesOf(document, member));
  const candidates = Object.keys(((members[0]?.[0]?.properties as Node | undefined) ?? {}) as Node);
  return candidates.find((name) => {
    const seen = new Set<unknown>();
    for (const leaves of members) {
      const values = new Set<unknown>();
      for (const leaf of leaves) {
        const schema = (leaf.properties as Record<string, Node> | undefined)?.[name];
        const declaredValues = schema?.const !== undefined ? [schema.const] : schema?.enum;
        if (!(leaf.required as string[] | undefined)?.includes(name) || !Array.isArray(declaredValues)) return false;
        for (const value of declaredValues) values.add(value);
      }
      for (const value of values) {
        if (seen.has(value)) return false;
        seen.add(value);
      }
    }
    return true;
  });
}

/** The object schemas a union member stands for: itself, or the members of the union it is. */
function leavesOf(document: Node, member: Node): Node[] {
  const schema = resolve(document, member);
  return Array.isArray(schema.oneOf)
    ? (schema.oneOf as Node[]).flatMap((inner) => leavesOf(document, inner))
    : [schema];
}

function resolve(document: Node, schema: Node): Node {
  if (typeof schema.$ref !== "string") return schema;
  const target = schema.$ref
    .replace(/^#\//, "")
    .split("/")
    .reduce<unknown>(
      (at, key) => (at as Node | undefined)?.[key.replaceAll("~1", "/").replaceAll("~0", "~")],
      document,
    );
  if (target === undefined) throw new Error(`unresolved ${schema.$ref}`);
  return resolve(document, target as Node);
}

/** Post-pass over the generated module: the marks left by prepareForHonoTakibi become zod. */
export function patchGeneratedRoutes(code: string): string {
  return withStrictIntegers(withUriFormat(withRecordLimits(withAbortingPatterns(withDiscriminatedUnions(code)))));
}

/** `z.url()` (the WHATWG parser) also checks `format: uri` as RFC 3986 defines it (contract/src/formats.ts). */
function withUriFormat(code: string): string {
  const patched = code.replace(/z\s*\.url\(\)/g, "z.url().refine(...uriCheck)");
  return patched === code ? code : withImport(patched, `import { uriCheck } from "../formats.ts";`);
}

/**
 * Integer parameters are generated as `z.coerce.number()`, which reads an empty `?createdBefore=` as 0: they are
 * parsed from their text instead, digits only (contract/src/formats.ts).
 */
function withStrictIntegers(code: string): string {
  const patched = code.replace(/z\.coerce\s*\.number\(\)/g, "z.string().regex(...integerText).transform(Number)");
  return patched === code ? code : withImport(patched, `import { integerText } from "../formats.ts";`);
}

/** `code` with `line` after its first import (one import per rule: Biome merges nothing in generated files). */
function withImport(code: string, line: string): string {
  return code.replace(/^(import .*\n)/m, `$1${line}\n`);
}

/** Each marked pattern check becomes `.regex(pattern, { abort: true })`. */
function withAbortingPatterns(code: string): string {
  const marked = new RegExp(String.raw`\{\s*error:\s*(['"])${ABORT_MARK}\1,?\s*\}`, "g");
  return code.replace(marked, "{ abort: true }");
}

/**
 * Each marked `z.xor([...], { error: mark })` becomes `z.discriminatedUnion(property, [...])`: a member is
 * chosen by its discriminator value, so a bad member is reported field by field (`content.0.value`), and an
 * unknown value by zod's own message, which lists the allowed values. The discriminator schemas of the
 * members (a literal, or an enum where several values share a member) and nested discriminated unions are
 * what z.discriminatedUnion reads its values from.
 */
function withDiscriminatedUnions(code: string): string {
  const marked = new RegExp(
    String.raw`\.xor\(\s*(\[\s*\w+(?:\s*,\s*\w+)*\s*,?\s*\]),\s*\{\s*error:\s*(['"])${DISCRIMINATOR_MARK}(\w+)\2,?\s*\},?\s*\)`,
    "g",
  );
  const patched = code.replace(marked, (_match, members: string, _quote, property: string, at: number) => {
    if (!members.includes("\n")) return `.discriminatedUnion('${property}', ${members})`;
    // Members prettier put one per line, re-indented for the call without its error argument.
    const indent = /^ */.exec(code.slice(code.lastIndexOf("\n", at) + 1))?.[0] ?? "";
    const names = members
      .slice(1, -1)
      .split(",")
      .map((name) => name.trim())
      .filter(Boolean);
    return `.discriminatedUnion('${property}', [\n${names.map((name) => `${indent}  ${name},\n`).join("")}${indent}])`;
  });
  // Members are component schemas ($refs); anything else is a case this rule was not written for.
  if (patched.includes(DISCRIMINATOR_MARK)) {
    throw new Error("a discriminated oneOf was not generated as z.xor([...]) of component schemas");
  }
  return patched;
}

/** Each record-limits mark becomes a `recordWithin` refinement. */
function withRecordLimits(code: string): string {
  const mark = `'${RECORD_LIMITS}': `;
  let patched = code;
  let at = patched.indexOf(mark);
  while (at >= 0) {
    const openapiCall = patched.lastIndexOf(".openapi(", at);
    const valueEnd = closingBrace(patched, at + mark.length) + 1;
    const limits = patched.slice(at + mark.length, valueEnd);
    const entryEnd = patched[valueEnd] === "," ? valueEnd + 1 : valueEnd;
    patched =
      patched.slice(0, openapiCall) +
      `.refine(...recordWithin(${limits}))` +
      patched.slice(openapiCall, at) +
      `...${limits},` +
      patched.slice(entryEnd);
    at = patched.indexOf(mark);
  }
  if (patched === code) return code;
  return withImport(patched, `import { recordWithin } from "../record-limits.ts";`);
}

/** Index of the `}` that closes the object literal starting at `open`. */
function closingBrace(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === "{") depth++;
    else if (text[i] === "}" && --depth === 0) return i;
  }
  throw new Error("unbalanced object literal in generated routes");
}
