/**
 * Mutations of a valid body, field by field: a field set to a value at or beyond its schema's limits (or a
 * valid alternative from the spec's examples), removed (a missing required field), or an unknown field added
 * beside it. A case applies one to three of them to one of the operation's valid bodies.
 */
import * as fc from "fast-check";
import { resolve, type SchemaObject, unionMembers } from "../spec.ts";
import { cloneJson, RawJson, type Value } from "../values/json-value.ts";
import { ODD_STRINGS } from "../values/odd-strings.ts";
import { PROTOTYPE_NAMES, valuesFor } from "../values/schema-values.ts";
import { type Path, type Slot, slotsOf } from "./slots.ts";

export type BodyMutation =
  | { op: "set"; path: Path; value: Value }
  | { op: "remove"; path: Path }
  | { op: "add"; path: Path; key: string; value: Value };

/** Keys of unknown fields: prototype names, odd characters, a dotted path, a very long key. */
const UNKNOWN_KEYS = [
  "unknownField",
  ...PROTOTYPE_NAMES,
  "",
  "a.b",
  "$ref",
  "k".repeat(1000),
  ...ODD_STRINGS.slice(2, 12),
];

const addedValue = fc.constantFrom<Value>(null, 1, "x", { polluted: true }, [], new RawJson('{"__proto__":{"x":1}}'));

function mutationsOf(slot: Slot): fc.Arbitrary<BodyMutation>[] {
  const set = valuesFor(slot.schema, { current: slot.current }).map(
    (value): BodyMutation => ({ op: "set", path: slot.path, value }),
  );
  const found: fc.Arbitrary<BodyMutation>[] = [set];
  const alternatives = examplesOf(slot.schema);
  if (alternatives.length > 0) {
    found.push(
      fc
        .constantFrom(...alternatives)
        .map((value): BodyMutation => ({ op: "set", path: slot.path, value: cloneJson(value) })),
    );
  }
  if ((slot.role === "required" || slot.role === "optional") && slot.current !== undefined) {
    found.push(fc.constant<BodyMutation>({ op: "remove", path: slot.path }));
  }
  const current = slot.current;
  if (current !== null && typeof current === "object" && !Array.isArray(current) && !(current instanceof RawJson)) {
    found.push(
      fc
        .tuple(fc.constantFrom(...UNKNOWN_KEYS), addedValue)
        .map(([key, value]): BodyMutation => ({ op: "add", path: slot.path, key, value })),
    );
  }
  return found;
}

/** Valid values the spec gives for a schema or its union's members (`examples`). */
function examplesOf(schema: SchemaObject): unknown[] {
  const members = unionMembers(schema);
  const own = (schema.examples as unknown[] | undefined) ?? [];
  return [...own, ...members.flatMap((member) => examplesOf(resolve(member)))];
}

/** One to three mutations of one of `bodies` (valid bodies of the operation). */
export function bodyMutations(schema: SchemaObject, bodies: Value[]) {
  return fc.oneof(
    ...bodies.map((body, base) => {
      const mutation = fc.oneof(...slotsOf(schema, body).flatMap((slot) => fc.oneof(...mutationsOf(slot))));
      return fc.record({ base: fc.constant(base), mutations: fc.array(mutation, { minLength: 1, maxLength: 3 }) });
    }),
  );
}

/** `body` with `mutations` applied (a mutation whose parent another one removed does nothing). */
export function applyMutations(body: Value, mutations: readonly BodyMutation[]): Value {
  let result = cloneJson(body);
  for (const mutation of mutations) {
    if (mutation.path.length === 0 && mutation.op !== "add") {
      result = mutation.op === "set" ? mutation.value : new RawJson("", "(no body)");
      continue;
    }
    const target = mutation.op === "add" ? mutation.path : mutation.path.slice(0, -1);
    const parent = at(result, target);
    if (parent === undefined) continue;
    if (mutation.op === "add") {
      if (!Array.isArray(parent)) defineField(parent, mutation.key, mutation.value);
      continue;
    }
    const last = mutation.path[mutation.path.length - 1] as string | number;
    if (Array.isArray(parent)) {
      if (typeof last !== "number") continue;
      if (mutation.op === "set") parent[last] = mutation.value;
      else parent.splice(last, 1);
    } else if (mutation.op === "set") defineField(parent, String(last), mutation.value);
    else delete parent[String(last)];
  }
  return result;
}

type Container = Value[] | { [key: string]: Value };

function at(value: Value, path: Path): Container | undefined {
  let current: Value | undefined = value;
  for (const key of path) {
    if (current === null || typeof current !== "object" || current instanceof RawJson) return undefined;
    current = Array.isArray(current) ? current[key as number] : current[String(key)];
  }
  if (current === null || typeof current !== "object" || current instanceof RawJson) return undefined;
  return current;
}

/** Sets an own field, even `__proto__` (which plain assignment would take as the prototype). */
function defineField(object: { [key: string]: Value }, key: string, value: Value): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}
