/**
 * The fields of a valid request body, each with the schema that governs it: found by walking an example body
 * beside its schema, so a union is followed into the member the example is (`config` of a judge evaluator
 * into LlmAsAJudgeEvaluatorConfig), and optional fields the example leaves out are slots too.
 */
import { validatorFor } from "@pharos/conformance/validator";
import { resolve, type SchemaObject, unionMembers } from "../spec.ts";
import type { Value } from "../values/json-value.ts";

export type Path = (string | number)[];

export interface Slot {
  path: Path;
  schema: SchemaObject;
  /** `required`/`optional`: a property of an object (it can be removed); `item` of an array; the body itself. */
  role: "required" | "optional" | "item" | "body";
  /** The value the valid body has there (undefined for an optional field it leaves out). */
  current: Value | undefined;
}

/** Array items walked per array: the first items are enough to reach every nested field. */
const ITEMS_WALKED = 2;

export function slotsOf(schema: SchemaObject, body: Value): Slot[] {
  const slots: Slot[] = [];
  const walk = (node: SchemaObject, value: Value | undefined, path: Path, role: Slot["role"]) => {
    const resolved = resolve(node);
    slots.push({ path, schema: resolved, role, current: value });
    if (value === undefined || value === null || typeof value !== "object") return;
    const target = memberFor(resolved, value);
    if (Array.isArray(value)) {
      if (target.items === undefined) return;
      value.slice(0, ITEMS_WALKED).forEach((item, index) => {
        walk(target.items as SchemaObject, item, [...path, index], "item");
      });
      return;
    }
    const properties = (target.properties as Record<string, SchemaObject> | undefined) ?? {};
    const required = new Set((target.required as string[] | undefined) ?? []);
    for (const [name, property] of Object.entries(properties)) {
      walk(property, value[name as keyof typeof value] as Value | undefined, [...path, name], roleOf(required, name));
    }
    const additional = target.additionalProperties;
    if (additional !== undefined && typeof additional === "object") {
      for (const [key, item] of Object.entries(value)) {
        if (!(key in properties)) walk(additional as SchemaObject, item as Value, [...path, key], "optional");
      }
    }
  };
  walk(schema, body, [], "body");
  return slots;
}

const roleOf = (required: Set<string>, name: string) => (required.has(name) ? "required" : "optional");

/** The member of a union that `value` is (the first that validates it, through nested unions); else the schema. */
export function memberFor(schema: SchemaObject, value: Value): SchemaObject {
  const members = unionMembers(schema);
  if (members.length === 0) return schema;
  const valid = members.find((member) => validatorFor(member)(value));
  return valid ? memberFor(valid, value) : schema;
}
