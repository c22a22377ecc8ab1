/**
 * Schemas and operations by meaning, for the drift test: `$ref`s inlined, annotations dropped (descriptions,
 * examples, titles, discriminators, `x-` keys), and equivalent spellings brought to one form:
 * - nullability: `nullable: true`, `type: [X, "null"]` and `anyOf: [X, {type: "null"}]` all become the anyOf;
 * - `const: v` becomes `enum: [v]`; `enum` and `required` are sorted; `anyOf`/`oneOf` members are sorted;
 * - a `oneOf` whose members provably exclude each other (different types, or a required property with disjoint
 *   values: a discriminated union; members that are themselves unions are flattened first) becomes an `anyOf`,
 *   which then validates the same;
 * - integer `format` (int32/int64) is dropped: JSON has one number type, the bounds carry the range;
 * - spellings of "no constraint" (`additionalProperties: true`, `items: {}`, `minLength: 0`, `minItems: 0`)
 *   are dropped, a one-member `allOf`/`anyOf` is its member.
 */
import { deref, type Json, parametersOf, requestBodyOf, responsesOf, type SpecOperation } from "./spec.ts";

const ANNOTATIONS = new Set([
  "description",
  "title",
  "example",
  "examples",
  "discriminator",
  "deprecated",
  "$comment",
  "externalDocs",
  "xml",
]);
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "dependentSchemas"]);
const SCHEMA_VALUES = new Set([
  "items",
  "additionalProperties",
  "not",
  "propertyNames",
  "contains",
  "if",
  "then",
  "else",
  "unevaluatedProperties",
  "unevaluatedItems",
]);
const SCHEMA_ARRAYS = new Set(["anyOf", "oneOf", "allOf", "prefixItems"]);

/** JSON with object keys sorted, so equal values have equal strings. */
export function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

const sortedUnique = (values: unknown[]) => {
  const byKey = new Map(values.map((v) => [stableStringify(v), v]));
  return [...byKey.keys()].sort().map((k) => byKey.get(k));
};

/** The canonical form of a schema of `document`. */
export function canonicalSchema(document: Json, node: unknown, stack: string[] = []): Json {
  if (node === true || node === undefined) return {};
  if (node === false) return { not: {} };
  let schema = node as Json;

  if (typeof schema.$ref === "string") {
    const ref = schema.$ref;
    if (stack.includes(ref)) return { $recursive: ref.split("/").pop() };
    const target = canonicalSchema(document, deref(document, { $ref: ref }), [...stack, ref]);
    const { $ref: _, ...siblings } = schema;
    const rest = canonicalSchema(document, siblings, stack);
    if (Object.keys(rest).length === 0) return target;
    return simplify({ allOf: [target, rest] });
  }

  schema = { ...schema };
  if (schema.nullable === true) {
    const types = schema.type === undefined ? [] : [schema.type].flat();
    schema.type = [...types, "null"];
  }
  delete schema.nullable;

  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(key) || key.startsWith("x-")) continue;
    if (SCHEMA_MAPS.has(key)) {
      out[key] = Object.fromEntries(
        Object.entries(value as Json).map(([name, sub]) => [name, canonicalSchema(document, sub, stack)]),
      );
    } else if (SCHEMA_VALUES.has(key)) {
      out[key] = typeof value === "boolean" ? value : canonicalSchema(document, value, stack);
    } else if (SCHEMA_ARRAYS.has(key)) {
      out[key] = (value as unknown[]).map((sub) => canonicalSchema(document, sub, stack));
    } else {
      out[key] = value;
    }
  }
  return simplify(out);
}

function typesOf(schema: Json): string[] | undefined {
  return schema.type === undefined ? undefined : [schema.type as string | string[]].flat();
}

function simplify(input: Json): Json {
  const schema = { ...input };
  if ("const" in schema) {
    schema.enum = [schema.const];
    delete schema.const;
  }
  if (Array.isArray(schema.enum)) schema.enum = sortedUnique(schema.enum);
  if (Array.isArray(schema.required)) {
    schema.required = sortedUnique(schema.required);
    if ((schema.required as unknown[]).length === 0) delete schema.required;
  }
  if (typesOf(schema)?.some((t) => t === "integer")) delete schema.format;
  if (Array.isArray(schema.type) && schema.type.length === 1) schema.type = schema.type[0];
  for (const key of ["additionalProperties", "items", "propertyNames"]) {
    if (isEmpty(schema[key])) delete schema[key];
  }
  if (schema.minLength === 0) delete schema.minLength;
  if (schema.minItems === 0) delete schema.minItems;
  if (isEmpty(schema.properties)) delete schema.properties;
  // An object that allows no property at all has at most 0 properties whether or not it says so.
  if (schema.maxProperties === 0 && schema.additionalProperties === false && !schema.properties) {
    delete schema.maxProperties;
  }
  // `/` needs no escape in a JSON Schema (ECMA-262) pattern; `\/` and `/` match the same.
  if (typeof schema.pattern === "string") schema.pattern = schema.pattern.replace(/\\\//g, "/");

  // type: [X, "null"] → anyOf: [{type: X, …}, {type: "null"}]
  const types = typesOf(schema);
  if (types && types.length > 1 && types.includes("null")) {
    const { anyOf, ...rest } = schema;
    const others = types.filter((t) => t !== "null");
    const nonNull: Json = { ...rest, type: others.length === 1 ? others[0] : others };
    if (Array.isArray(nonNull.enum)) nonNull.enum = (nonNull.enum as unknown[]).filter((v) => v !== null);
    const split: Json = { anyOf: [simplify(nonNull), { type: "null" }] };
    return simplify(anyOf ? { allOf: [split, { anyOf }] } : split);
  }

  if (Array.isArray(schema.allOf)) {
    // Members (and the schema itself) whose keywords do not clash, or agree, are one schema: merge them.
    const { allOf, ...own } = schema;
    const separate: Json[] = [];
    let merged: Json = own;
    for (const member of allOf as Json[]) {
      const agrees =
        !reachesAcross(merged, member) &&
        !reachesAcross(member, merged) &&
        Object.entries(member).every(
          ([key, value]) => !(key in merged) || stableStringify(merged[key]) === stableStringify(value),
        );
      if (agrees) merged = { ...merged, ...member };
      else separate.push(member);
    }
    if (separate.length === 0) return simplify(merged);
    return { ...merged, allOf: sortedUnique(separate) };
  }

  if (Array.isArray(schema.oneOf)) {
    // A member that is only a union contributes its members (a oneOf of unions, e.g. LogFilter's groups).
    const leaves = (schema.oneOf as Json[]).flatMap((member) =>
      Object.keys(member).length === 1 && Array.isArray(member.anyOf) ? (member.anyOf as Json[]) : [member],
    );
    if (pairwiseDisjoint(leaves)) {
      schema.anyOf = [...((schema.anyOf as Json[] | undefined) ?? []), ...leaves];
      delete schema.oneOf;
    }
  }
  for (const key of ["anyOf", "oneOf"]) {
    if (!Array.isArray(schema[key])) continue;
    const flat = (schema[key] as Json[]).flatMap((member) =>
      key === "anyOf" && Object.keys(member).length === 1 && Array.isArray(member.anyOf)
        ? (member.anyOf as Json[])
        : [member],
    );
    schema[key] = sortedUnique(flat);
    if ((schema[key] as Json[]).length === 1) {
      const { [key]: members, ...rest } = schema;
      const only = (members as Json[])[0] as Json;
      if (!Object.keys(rest).some((k) => k in only)) return simplify({ ...rest, ...only });
    }
  }
  return schema;
}

/** Whether a keyword of `a` reads sibling keywords that `b` would bring (so merging would change it). */
function reachesAcross(a: Json, b: Json): boolean {
  const has = (s: Json, keys: string[]) => keys.some((key) => key in s);
  return (
    (has(a, ["additionalProperties", "unevaluatedProperties"]) && has(b, ["properties", "patternProperties"])) ||
    (has(a, ["items", "unevaluatedItems"]) && has(b, ["prefixItems"]))
  );
}

function isEmpty(value: unknown): boolean {
  return value === true || (value !== null && typeof value === "object" && Object.keys(value).length === 0);
}

/** Whether no value can match two members: different types, or a required property with disjoint values. */
function pairwiseDisjoint(members: Json[]): boolean {
  for (let i = 0; i < members.length; i++) {
    for (let j = i + 1; j < members.length; j++) {
      if (!disjoint(members[i] as Json, members[j] as Json)) return false;
    }
  }
  return true;
}

function disjoint(a: Json, b: Json): boolean {
  const widen = (types: string[]) => (types.includes("number") ? [...types, "integer"] : types);
  const ta = typesOf(a);
  const tb = typesOf(b);
  if (ta && tb && !widen(ta).some((t) => widen(tb).includes(t)) && !widen(tb).some((t) => widen(ta).includes(t))) {
    return true;
  }
  if (Array.isArray(a.enum) && Array.isArray(b.enum)) {
    const keys = new Set((a.enum as unknown[]).map(stableStringify));
    if (!(b.enum as unknown[]).some((v) => keys.has(stableStringify(v)))) return true;
  }
  const required = (s: Json) => (s.required as string[] | undefined) ?? [];
  const props = (s: Json) => (s.properties as Record<string, Json> | undefined) ?? {};
  for (const name of required(a)) {
    const pa = props(a)[name];
    const pb = props(b)[name];
    if (pa && pb && required(b).includes(name) && disjoint(pa, pb)) return true;
  }
  return false;
}

/** One operation by meaning: parameters, request body and responses. */
export interface CanonicalOperation {
  parameters: Record<string, { required: boolean; schema: Json }>;
  requestBody: { required: boolean; content: Record<string, Json> } | null;
  responses: Record<string, { content: Record<string, Json>; headers: Record<string, Json> }>;
}

function canonicalContent(document: Json, content: unknown): Record<string, Json> {
  return Object.fromEntries(
    Object.entries((content as Record<string, Json> | undefined) ?? {}).map(([type, media]) => [
      type,
      canonicalSchema(document, media.schema),
    ]),
  );
}

export function canonicalOperation(document: Json, operation: SpecOperation): CanonicalOperation {
  const parameters: CanonicalOperation["parameters"] = {};
  for (const [key, parameter] of parametersOf(document, operation)) {
    parameters[key] = {
      required: parameter.in === "path" || parameter.required === true,
      schema: canonicalSchema(document, parameter.schema),
    };
  }
  const body = requestBodyOf(document, operation);
  const responses: CanonicalOperation["responses"] = {};
  for (const [status, response] of responsesOf(document, operation)) {
    responses[status] = {
      content: canonicalContent(document, response.content),
      headers: Object.fromEntries(
        Object.entries((response.headers as Json | undefined) ?? {}).map(([name, header]) => [
          name,
          canonicalSchema(document, deref<Json>(document, header).schema),
        ]),
      ),
    };
  }
  return {
    parameters,
    requestBody: body ? { required: body.required === true, content: canonicalContent(document, body.content) } : null,
    responses,
  };
}

/** One way the emitted operation differs from the spec's. `path` is a JSON-pointer-like location. */
export interface Difference {
  operationId: string;
  path: string;
  spec: unknown;
  emitted: unknown;
}

const MISSING = undefined;

/** The differences between two canonical values, as precise as the structure allows. */
export function diff(operationId: string, spec: unknown, emitted: unknown, path = ""): Difference[] {
  if (stableStringify(spec) === stableStringify(emitted)) return [];
  const isObject = (v: unknown): v is Json => v !== null && typeof v === "object" && !Array.isArray(v);
  if (isObject(spec) && isObject(emitted)) {
    const keys = [...new Set([...Object.keys(spec), ...Object.keys(emitted)])].sort();
    return keys.flatMap((key) => {
      if (key === "required" && Array.isArray(spec[key] ?? []) && Array.isArray(emitted[key] ?? [])) {
        const a = (spec[key] as string[] | undefined) ?? [];
        const b = (emitted[key] as string[] | undefined) ?? [];
        return [
          ...a
            .filter((n) => !b.includes(n))
            .map((n) => ({ operationId, path: `${path}/required/${n}`, spec: true, emitted: false })),
          ...b
            .filter((n) => !a.includes(n))
            .map((n) => ({ operationId, path: `${path}/required/${n}`, spec: false, emitted: true })),
        ];
      }
      return diff(operationId, spec[key] ?? MISSING, emitted[key] ?? MISSING, `${path}/${key}`);
    });
  }
  if (Array.isArray(spec) && Array.isArray(emitted) && /\/(anyOf|oneOf|allOf)$/.test(path)) {
    const aligned = alignMembers(spec as Json[], emitted as Json[]);
    if (aligned) return aligned.flatMap(([key, a, b]) => diff(operationId, a, b, `${path}/${key}`));
  }
  return [{ operationId, path, spec, emitted }];
}

/** What tells a union member apart: its type and its required one-value properties (the discriminator). */
function signature(member: Json): string {
  const properties = (member.properties as Record<string, Json> | undefined) ?? {};
  const required = (member.required as string[] | undefined) ?? [];
  const tags = Object.entries(properties)
    .filter(([name, p]) => required.includes(name) && Array.isArray(p.enum) && p.enum.length === 1)
    .map(([name, p]) => `${name}=${stableStringify((p.enum as unknown[])[0])}`)
    .sort();
  return `${stableStringify(member.type)}|${tags.join(",")}`;
}

/**
 * Pairs the members of two unions: by signature when every member has a distinct one and both sides have the
 * same set, else by position when the lengths agree; undefined when they cannot be paired.
 */
function alignMembers(spec: Json[], emitted: Json[]): [string, Json | undefined, Json | undefined][] | undefined {
  const a = spec.map(signature);
  const b = emitted.map(signature);
  const distinct = (xs: string[]) => new Set(xs).size === xs.length;
  if (distinct(a) && distinct(b) && a.length === b.length && a.every((sig) => b.includes(sig))) {
    return a.map((sig, i) => [sig, spec[i], emitted[b.indexOf(sig)]]);
  }
  if (spec.length !== emitted.length) return undefined;
  // No usable signatures: pair each spec member with the emitted member it differs from least.
  const left = emitted.map((_, i) => i);
  return spec.map((member, i) => {
    const cost = (j: number) => diff("", member, emitted[j]).length;
    const best = left.reduce((a, b) => (cost(b) < cost(a) ? b : a));
    left.splice(left.indexOf(best), 1);
    return [String(i), member, emitted[best]];
  });
}
