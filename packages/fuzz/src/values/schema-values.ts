/**
 * Values for one field of a schema, chosen by fast-check: at and beyond each limit the schema declares
 * (lengths, bounds, item and property counts), outside its enum, against its pattern and format, of every
 * JSON type it does not allow, odd strings, awkward numbers and nesting around the depth limit. Some are valid
 * (exactly at a limit, another enum value): those go past validation into the services and the database.
 */
import * as fc from "fast-check";
import { type JsonType, resolve, type SchemaObject, typesOf, unionMembers } from "../spec.ts";
import { deeplyNestedText, nested, RawJson, toJsonText, type Value } from "./json-value.ts";
import { oddString } from "./odd-strings.ts";

const LONG = 1_000_000;

/** The empty value of an item's JSON type: what fills an array whose count of full items would be too big. */
function emptyLike(item: Value): Value {
  if (Array.isArray(item)) return [];
  if (item instanceof RawJson || typeof item === "number") return 0;
  if (item !== null && typeof item === "object") return {};
  if (typeof item === "string") return "";
  return item;
}

/**
 * `count` copies of `item`. Past LONG characters of JSON they are empty values of the item's type: a count near
 * an array's maxItems (100,000 resourceSpans) would otherwise make a body of over 64 MB that the body limit
 * refuses before the count is checked, and the Node adapter cuts such a connection after draining 64 MB.
 */
function copies(item: Value, count: number): Value[] {
  const filler = toJsonText(item).length * count > LONG ? emptyLike(item) : item;
  return Array.from({ length: count }, () => structuredClone(filler));
}

/** Characters a length is filled with: one UTF-16 unit, two (outside the BMP), a combining mark, a wide one. */
const FILL = ["a", "é", "😀", "\u0301", "字", " "] as const;

const NUMBERS: readonly Value[] = [
  0,
  -1,
  1.5,
  0.1,
  1e308,
  -1e308,
  5e-324,
  2 ** 31,
  2 ** 32,
  2 ** 53 - 1,
  -(2 ** 53 - 1),
  new RawJson("-0"),
  new RawJson("9007199254740992"),
  new RawJson("9007199254740993"),
  new RawJson("-9007199254740993"),
  new RawJson("1e400"),
  new RawJson("-1e400"),
  new RawJson("1E+2"),
  new RawJson("100.0"),
  new RawJson("1".repeat(400)),
  new RawJson("0.0000000000000000000000000000001"),
];

const BAD_URIS = [
  "not a uri",
  "http://",
  "http://exa mple.com",
  "http://[::1",
  "://no-scheme",
  "javascript:alert(1)",
  "file:///etc/passwd",
  "http://127.0.0.1:0/",
  "http://169.254.169.254/latest",
  "http://例え.jp/パス",
  "http://a\u0000b.com",
  `http://a.com/${"x".repeat(5000)}`,
];

const BAD_UUIDS = ["", "0", "00000000-0000-0000-0000-00000000000g", "00000000000000000000000000000000", "{uuid}"];

/**
 * Names every object inherits: a value that is also a key into a plain-object table (a content type, a column
 * name) finds a function there. They match most patterns, so they get past validation.
 */
export const PROTOTYPE_NAMES = ["constructor", "toString", "valueOf", "hasOwnProperty", "__proto__", "prototype"];

/** Every JSON type, one plain value each, for wrong-type mutations. */
const VALUE_OF_TYPE: Record<JsonType, Value[]> = {
  null: [null],
  boolean: [true, false],
  integer: [0, 7],
  number: [0.5],
  string: ["", "text"],
  array: [[], [null], ["text"]],
  object: [{}, { "": null }],
};

export interface FieldContext {
  /** The field's current value in the valid request, used to fill arrays and maps with valid items. */
  current?: Value;
}

export function valuesFor(schema: SchemaObject, context: FieldContext = {}): fc.Arbitrary<Value> {
  const resolved = resolve(schema);
  const members = unionMembers(resolved);
  const own = members.length > 0 ? members : [resolved];
  const boundaries = own.flatMap((member) => boundariesOf(member, context));
  const choices: fc.WeightedArbitrary<Value>[] = [
    { weight: 2, arbitrary: wrongTypes(typesOf(resolved)) },
    { weight: 2, arbitrary: oddString },
    { weight: 1, arbitrary: fc.constantFrom<Value>(...NUMBERS) },
    { weight: 1, arbitrary: nesting },
    ...own.flatMap((member) => limitsOf(member, context).map((arbitrary) => ({ weight: 1, arbitrary }))),
  ];
  // The exact limits are what a schema says; they are drawn most, so each field's are met in a default run.
  if (boundaries.length > 0) choices.push({ weight: 5, arbitrary: fc.constantFrom(...boundaries) });
  return fc.oneof(...choices);
}

/** Each limit of a schema that is not a union, exactly and one beyond (one below a minimum), and its enum values. */
function boundariesOf(schema: SchemaObject, context: FieldContext): Value[] {
  const found: Value[] = [...((schema.enum as Value[] | undefined) ?? [])];
  const types = typesOf(schema);
  const around = (min: number | undefined, max: number | undefined) =>
    [...(min === undefined ? [] : [min - 1, min]), ...(max === undefined ? [] : [max, max + 1])].filter((n) => n >= 0);
  if (types.has("string") && schema.type !== undefined) {
    found.push(
      ...around(schema.minLength as number | undefined, schema.maxLength as number | undefined).map((n) =>
        "a".repeat(n),
      ),
    );
  }
  if ((types.has("integer") || types.has("number")) && schema.type !== undefined) {
    for (const bound of [schema.minimum, schema.maximum]) {
      if (typeof bound === "number") found.push(bound - 1, bound, bound + 1);
    }
  }
  if (types.has("array") && schema.type !== undefined) {
    const item: Value =
      Array.isArray(context.current) && context.current.length > 0 ? (context.current[0] as Value) : "item";
    for (const count of around(schema.minItems as number | undefined, schema.maxItems as number | undefined)) {
      found.push(copies(item, count));
    }
  }
  if (types.has("object") && schema.maxProperties !== undefined) {
    const max = schema.maxProperties as number;
    for (const count of [max, max + 1]) {
      found.push(Object.fromEntries(Array.from({ length: count }, (_, i) => [`key${i}`, "value"])));
    }
  }
  return found;
}

/** Values at and beyond the limits of a schema that is not a union. */
function limitsOf(schema: SchemaObject, context: FieldContext): fc.Arbitrary<Value>[] {
  const found: fc.Arbitrary<Value>[] = [];
  if (schema.enum !== undefined || schema.const !== undefined) found.push(enumValues(schema));
  const types = typesOf(schema);
  if (types.has("string")) found.push(stringLimits(schema));
  if (types.has("integer") || types.has("number")) found.push(numberLimits(schema, !types.has("number")));
  if (types.has("array") && schema.type !== undefined) found.push(arrayLimits(schema, context.current));
  if (types.has("object") && schema.type !== undefined) found.push(objectLimits(schema, context.current));
  return found;
}

function wrongTypes(allowed: Set<JsonType>): fc.Arbitrary<Value> {
  const wrong = (Object.keys(VALUE_OF_TYPE) as JsonType[])
    .filter((type) => !allowed.has(type) && !(type === "integer" && allowed.has("number")))
    .flatMap((type) => VALUE_OF_TYPE[type]);
  return wrong.length > 0 ? fc.constantFrom(...wrong) : fc.constant(null);
}

/** Nesting around the body's depth limit (64) and far past it. */
const nesting: fc.Arbitrary<Value> = fc
  .tuple(fc.constantFrom(30, 62, 63, 64, 65, 200, 5_000, 100_000), fc.constantFrom("array" as const, "object" as const))
  .map(([depth, kind]) => (depth <= 200 ? nested(depth, kind) : deeplyNestedText(depth, kind)));

function enumValues(schema: SchemaObject): fc.Arbitrary<Value> {
  const allowed = ((schema.enum as Value[] | undefined) ?? [schema.const as Value]).filter((v) => v !== undefined);
  const strings = allowed.filter((v): v is string => typeof v === "string");
  const outsiders = strings.flatMap((v) => [v.toUpperCase(), `${v} `, ` ${v}`, `${v}\u200b`, v.slice(1), `${v}x`]);
  return fc.constantFrom<Value>(...allowed, ...outsiders, "", "other");
}

function stringLimits(schema: SchemaObject): fc.Arbitrary<Value> {
  const min = (schema.minLength as number | undefined) ?? 0;
  const max = schema.maxLength as number | undefined;
  const beyond = max === undefined ? [] : [max - 1, max, max + 1, ...(max * 2 <= LONG ? [max * 2] : [])];
  const lengths = [0, 1, min - 1, min, min + 1, ...(max === undefined ? [1000] : beyond)];
  const sized = fc
    .tuple(fc.constantFrom(...new Set(lengths.filter((n) => n >= 0))), fc.constantFrom(...FILL))
    // Past a million characters only one-byte text: a field limited to 32 MiB (span content) would otherwise
    // make bodies of over 100 MB, slow to build and send, and refused by the body limit all the same.
    .map(([length, fill]) => (length > LONG ? "a" : fill).repeat(length));
  const choices: fc.Arbitrary<Value>[] = [sized, fc.constantFrom(...PROTOTYPE_NAMES)];
  if (schema.pattern !== undefined) {
    choices.push(fc.constantFrom("", " ", "a b", "-", ".", "A", "0", "_", "a/b", "é", "{{x}}", "x".repeat(300)));
  }
  if (schema.format === "uri") choices.push(fc.constantFrom(...BAD_URIS));
  if (schema.format === "uuid") choices.push(fc.constantFrom(...BAD_UUIDS), fc.uuid());
  return fc.oneof(...choices);
}

function numberLimits(schema: SchemaObject, integer: boolean): fc.Arbitrary<Value> {
  const bounds = [schema.minimum, schema.maximum, schema.exclusiveMinimum, schema.exclusiveMaximum].filter(
    (n): n is number => typeof n === "number",
  );
  const near = bounds.flatMap((n) => [n - 1, n, n + 1, n - 0.5, n + 0.5]);
  const values: Value[] = [...near, ...(integer ? [1.5, -0.5] : [Number.MIN_VALUE, 0.1 + 0.2])];
  return fc.oneof(
    fc.constantFrom(...values),
    integer ? fc.integer() : fc.double({ noNaN: true, noDefaultInfinity: true }),
  );
}

function arrayLimits(schema: SchemaObject, current: Value | undefined): fc.Arbitrary<Value> {
  const min = (schema.minItems as number | undefined) ?? 0;
  const max = schema.maxItems as number | undefined;
  const item: Value = Array.isArray(current) && current.length > 0 ? (current[0] as Value) : "item";
  const counts = [0, 1, min - 1, min, ...(max === undefined ? [1000] : [max, max + 1])];
  return fc.constantFrom(...new Set(counts.filter((n) => n >= 0))).map((count) => copies(item, count));
}

function objectLimits(schema: SchemaObject, current: Value | undefined): fc.Arbitrary<Value> {
  const min = (schema.minProperties as number | undefined) ?? 0;
  const max = schema.maxProperties as number | undefined;
  const entries = current !== null && typeof current === "object" && !Array.isArray(current) ? current : {};
  const sample: Value = Object.values(entries)[0] ?? "value";
  const counts = [0, min - 1, min, ...(max === undefined ? [] : [max, max + 1])];
  const keyed = fc
    .constantFrom(...new Set(counts.filter((n) => n >= 0)))
    .map((count) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`key${i}`, structuredClone(sample)])));
  return fc.oneof(keyed, fc.constant<Value>({ ...entries, unknownField: 1 }));
}
