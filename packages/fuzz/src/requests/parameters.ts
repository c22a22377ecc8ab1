/**
 * Mutations of an operation's path and query parameters: values at and beyond the schema's limits and of other
 * types, odd strings, percent-encodings that are not UTF-8 or not encodings at all, ids of other kinds and of
 * another workspace, cursors of other queries or tampered with; a parameter left out, repeated, given without
 * a value, and parameters the operation does not have.
 */
import * as fc from "fast-check";
import type { OperationShape, Parameter } from "../spec.ts";
import { oddString } from "../values/odd-strings.ts";
import { valuesFor } from "../values/schema-values.ts";
import type { World } from "../world.ts";
import { parameterText, percentEncode } from "./url-text.ts";

export type ParameterMutation =
  | { in: "path"; name: string; value: string }
  | { in: "query"; name: string; op: "set" | "repeat"; value: string }
  | { in: "query"; name: string; op: "remove" | "bare" };

/** Encoded text that URL parsers and decoders trip on. */
const URL_TEXT = [
  "",
  "%00",
  "a%00b",
  "%FF",
  "%C0%80",
  "%C0%AF",
  "%ED%A0%80",
  "%F4%90%80%80",
  "%E2%82",
  "%",
  "%G0",
  "%2",
  "%252F",
  "a%2Fb",
  "%2F",
  "..",
  "%2E%2E",
  ".",
  "+",
  "%20",
  "%0D%0A",
  "a;b",
  "a,b",
  "%E2%80%AE",
  "%EF%BB%BF",
];

/** Numbers as text in forms an integer parser may or may not take. */
const NUMBER_TEXT = ["1e3", "0x10", " 1", "1 ", "+1", "-0", "00", "01", "1.0", "Infinity", "NaN", "9007199254740993"];

const UNKNOWN_PARAMETERS = ["unknown", "__proto__", "constructor", "limit[]", "a%00b", "%FF", "cursor%00"];

/**
 * The most encoded characters one parameter carries. Node answers 431 by itself (no JSON, no request id) past
 * 16 KiB of request line and headers, before the app sees the request; three parameters of this size stay below.
 */
const MAX_PARAMETER_TEXT = 4_000;

const unknownId = (prefix: string) => `${prefix}_${"0".repeat(26)}`;

/** Cursors that are almost right: one character changed, cut short, padded. */
function tamperedCursors(cursors: readonly string[]): string[] {
  return cursors.flatMap((cursor) => [
    `${cursor.slice(0, -2)}${cursor.at(-2) === "A" ? "B" : "A"}${cursor.slice(-1)}`,
    cursor.slice(0, cursor.length / 2),
    `${cursor}=`,
    `${cursor}${cursor}`,
  ]);
}

function valuesOf(parameter: Parameter, world: World, operationId: string): fc.Arbitrary<string> {
  const ids = [...world.idsSafeFor(operationId), ...Object.values(world.otherIds)];
  const prefix = world.ids[parameter.name]?.split("_")[0];
  const choices: fc.Arbitrary<string>[] = [
    valuesFor(parameter.schema).map((value) => parameterText(value, MAX_PARAMETER_TEXT)),
    oddString.map((text) => percentEncode(text, MAX_PARAMETER_TEXT)),
    fc.constantFrom(...URL_TEXT, ...NUMBER_TEXT),
    fc.constantFrom(...ids, unknownId(prefix ?? "project"), "x".repeat(19), "x".repeat(81)),
  ];
  if (parameter.name === "cursor" && world.cursors.length > 0) {
    choices.push(fc.constantFrom(...world.cursors, ...tamperedCursors(world.cursors)).map(percentEncode));
  }
  // A path parameter's valid value is the case's own (world.freshIdsFor), not necessarily the world's.
  const valid = parameter.in === "query" ? validValueOf(parameter, world) : undefined;
  if (valid !== undefined) choices.push(fc.constant(valid));
  return fc.oneof(...choices).map((text) => text.slice(0, MAX_PARAMETER_TEXT));
}

/** A value the spec would accept for a parameter: the world's resource, the spec's example, an enum value. */
export function validValueOf(parameter: Parameter, world: World): string | undefined {
  const fromWorld = world.ids[parameter.name];
  if (fromWorld !== undefined) return fromWorld;
  const schema = parameter.schema;
  const candidates = [parameter.example, (schema.enum as unknown[] | undefined)?.[0], schema.default];
  const found = candidates.find((value) => value !== undefined);
  return found === undefined ? undefined : parameterText(world.substitute(found));
}

function mutationsOf(parameter: Parameter, world: World, operationId: string): fc.Arbitrary<ParameterMutation>[] {
  const { name } = parameter;
  const values = valuesOf(parameter, world, operationId);
  if (parameter.in === "path") {
    return [values.map((value): ParameterMutation => ({ in: "path", name, value }))];
  }
  return [
    fc
      .tuple(fc.constantFrom("set" as const, "repeat" as const), values)
      .map(([op, value]): ParameterMutation => ({ in: "query", name, op, value })),
    fc.constantFrom("remove" as const, "bare" as const).map((op): ParameterMutation => ({ in: "query", name, op })),
  ];
}

export function parameterMutations(shape: OperationShape, world: World): fc.Arbitrary<ParameterMutation[]> {
  const unknown = fc
    .tuple(fc.constantFrom(...UNKNOWN_PARAMETERS), fc.constantFrom("1", "", "%FF"))
    .map(([name, value]): ParameterMutation => ({ in: "query", name, op: "set", value }));
  const mutation = fc.oneof(
    ...[...shape.pathParameters, ...shape.queryParameters].flatMap((p) => mutationsOf(p, world, shape.operationId)),
    unknown,
  );
  return fc.array(mutation, { minLength: 1, maxLength: 3 });
}
