/**
 * The values the fuzzer puts into bodies: JSON values plus verbatim fragments of JSON text for what
 * `JSON.stringify` cannot write (`-0`, `9007199254740993`, `1e400`, 100,000 levels of nesting).
 */
import * as fc from "fast-check";

export class RawJson {
  constructor(
    readonly text: string,
    /** How the fragment is shown in a report: big fragments are described rather than printed. */
    readonly label: string = text,
  ) {}

  [fc.toStringMethod](): string {
    return `raw(${this.label})`;
  }
}

export type Value = null | boolean | number | string | RawJson | Value[] | { [key: string]: Value };

/** JSON text of `value`, fragments inlined. Lone surrogates in strings come out as `\udXXX` escapes. */
export function toJsonText(value: Value): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(",")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}:${toJsonText(item)}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** A JSON value (parsed from the spec's examples) as a fresh, mutable Value. */
export const cloneJson = (value: unknown): Value => structuredClone(value) as Value;

/** `depth` levels of arrays or objects around `inner`, as a Value (shallow enough for recursion). */
export function nested(depth: number, kind: "array" | "object", inner: Value = 1): Value {
  let value = inner;
  for (let level = 0; level < depth; level++) value = kind === "array" ? [value] : { a: value };
  return value;
}

/** `depth` levels of nesting as JSON text, for depths no recursive serializer or parser should be asked to build. */
export function deeplyNestedText(depth: number, kind: "array" | "object"): RawJson {
  const [open, close] = kind === "array" ? ["[", "]"] : ['{"a":', "}"];
  return new RawJson(`${open.repeat(depth)}1${close.repeat(depth)}`, `${depth} levels of ${kind}s`);
}
