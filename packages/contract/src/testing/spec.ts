/**
 * Reading the bundled document in tests: dereferencing, walking operations, and an ajv (JSON Schema 2020-12)
 * validator that is independent of the generated zod schemas.
 */
import { openapiDocument } from "../index.ts";
import { createSchemaValidator } from "../schema-validator.ts";

export type { SchemaObject } from "../schema-validator.ts";

import type { SchemaObject } from "../schema-validator.ts";

type Json = Record<string, unknown>;

export const document = openapiDocument as unknown as Json;
export const HTTP_METHODS = ["get", "put", "post", "delete", "patch"] as const;

export interface Operation {
  method: (typeof HTTP_METHODS)[number];
  path: string;
  operationId: string;
  node: Json;
  /** Parameters declared on the path item, shared by its operations. */
  pathParameters: unknown[];
}

/** Every operation of the bundle, in document order. */
export function operationsOf(doc: Json = document): Operation[] {
  const result: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const method of HTTP_METHODS) {
      const node = item[method] as Json | undefined;
      if (node) {
        const pathParameters = (item.parameters as unknown[] | undefined) ?? [];
        result.push({ method, path, operationId: node.operationId as string, node, pathParameters });
      }
    }
  }
  return result;
}

/** Follows a local `$ref` (`#/components/...`) until it reaches a node without one. */
export function deref<T = Json>(node: unknown): T {
  let current = node as Json;
  while (current && typeof current.$ref === "string") {
    const pointer = (current.$ref as string).replace(/^#\//, "").split("/");
    current = pointer.reduce<Json>((at, key) => at[key.replace(/~1/g, "/").replace(/~0/g, "~")] as Json, document);
    if (current === undefined) throw new Error(`unresolved $ref ${String((node as Json).$ref)}`);
  }
  return current as T;
}

/** The parameters of an operation (its own and its path item's), dereferenced, keyed by `in:name`. */
export function parametersOf(operation: Operation): Map<string, Json> {
  const own = (operation.node.parameters as unknown[] | undefined) ?? [];
  const params = [...operation.pathParameters, ...own].map((p) => deref(p));
  return new Map(params.map((p) => [`${p.in as string}:${p.name as string}`, p]));
}

export function requestSchemaOf(operation: Operation): SchemaObject | undefined {
  const body = operation.node.requestBody ? deref(operation.node.requestBody) : undefined;
  return (body?.content as Record<string, Json> | undefined)?.["application/json"]?.schema as SchemaObject;
}

/** The JSON schema of one response of an operation. */
export function responseSchemaOf(operation: Operation, status: string): SchemaObject | undefined {
  const response = responsesOf(operation).get(status);
  return (response?.content as Record<string, Json> | undefined)?.["application/json"]?.schema as SchemaObject;
}

export function responsesOf(operation: Operation): Map<string, Json> {
  return new Map(Object.entries(operation.node.responses as Json).map(([status, r]) => [status, deref(r)]));
}

const validator = createSchemaValidator(document);
export const { validatorFor, schemaErrors } = validator;

export function componentSchema(name: string): SchemaObject {
  const schema = ((document.components as Json).schemas as Json)[name];
  if (!schema) throw new Error(`no component schema ${name}`);
  return schema as SchemaObject;
}

/** A schema with `$ref`s followed and a nullable wrapper (`anyOf: [X, {type: 'null'}]`) unwrapped to X. */
export function resolveSchema(schema: unknown): SchemaObject {
  let current = deref<SchemaObject>(schema);
  for (;;) {
    const union = (current.anyOf ?? current.oneOf) as unknown[] | undefined;
    const nonNull = union?.filter((s) => deref<SchemaObject>(s).type !== "null");
    if (!union || nonNull?.length !== 1 || nonNull.length === union.length) return current;
    current = deref<SchemaObject>(nonNull[0]);
  }
}

/** The variants of a union (oneOf/anyOf), dereferenced; a non-union schema is its own single variant. */
export function variantsOf(schema: unknown): SchemaObject[] {
  const resolved = resolveSchema(schema);
  const union = (resolved.oneOf ?? resolved.anyOf) as unknown[] | undefined;
  return union ? union.flatMap((s) => variantsOf(s)) : [resolved];
}

/** The values a union's variants declare for their discriminating property. */
export function discriminatorValues(schema: unknown, property: string): string[] {
  return variantsOf(schema).flatMap((variant) => {
    const prop = variant.properties ? resolveSchema((variant.properties as Json)[property]) : undefined;
    return ((prop?.enum as string[] | undefined) ?? (prop?.const !== undefined ? [prop.const as string] : [])).map(
      String,
    );
  });
}

/**
 * The schema of a nested field (`trace.status`, `spans[].content`, `rows[].values`) and whether its parent
 * requires it. In a union, the first variant that has the field answers.
 */
export function fieldOf(schema: unknown, path: string): { schema: SchemaObject; required: boolean } {
  let current = resolveSchema(schema);
  let required = true;
  for (const segment of path.split(".")) {
    const [name, ...arrays] = segment.split("[]");
    if (name) {
      const owner = variantsOf(current).find((v) => v.properties && name in (v.properties as Json));
      if (!owner) throw new Error(`no field ${name} in ${path}`);
      required = ((owner.required as string[] | undefined) ?? []).includes(name);
      current = resolveSchema((owner.properties as Json)[name]);
    }
    for (const _ of arrays) {
      if (current.items === undefined) throw new Error(`${name} of ${path} is not an array`);
      current = resolveSchema(current.items);
    }
  }
  return { schema: current, required };
}
