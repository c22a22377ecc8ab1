/**
 * What the fuzzer reads of the bundled spec for each operation: its path and query parameters, its request
 * body's schema and examples, and the statuses it declares. Schemas are resolved through `$ref`s here, once.
 */
import {
  bundle,
  deref,
  type Json,
  parametersOf,
  requestBodyOf,
  responsesOf,
  type SchemaObject,
  type SpecOperation,
  specOperations,
} from "@pharos/conformance/spec";

export { bundle, deref, type Json, type SchemaObject, type SpecOperation };

export interface Parameter {
  name: string;
  in: "path" | "query";
  required: boolean;
  schema: SchemaObject;
  example: unknown;
}

export interface OperationShape {
  operation: SpecOperation;
  operationId: string;
  method: string;
  /** The path template below the server URL, `/prompts/{promptId}`. */
  path: string;
  pathParameters: Parameter[];
  queryParameters: Parameter[];
  /** The JSON request body: its schema and every example the spec gives of it (the media's, then the schema's). */
  body: { schema: SchemaObject; examples: unknown[] } | undefined;
  /** The statuses the spec declares for the operation. */
  statuses: ReadonlySet<number>;
}

/**
 * Request media types the suite does not generate bodies of, each with the reason. Every other request media
 * type of the spec but JSON fails generators.test.ts, so that fuzzing another one is a decision, not an omission.
 */
export const UNFUZZED_MEDIA_TYPES: Record<string, string> = {
  "application/x-protobuf":
    "exportOtelTraces' protobuf body is bytes that fast-check cannot derive from the spec's JSON Schema; the same " +
    "operation's OTLP/JSON body is fuzzed, and the protobuf decoder's bad input (truncated, wrong wire types, " +
    "deep nesting, gzip bombs) is tested in apps/server/src/routes/logs/export-otel-traces.test.ts",
};

function shapeOf(operation: SpecOperation): OperationShape {
  const parameters = [...parametersOf(bundle, operation).values()].map(
    (p): Parameter => ({
      name: p.name as string,
      in: p.in as "path" | "query",
      required: p.required === true,
      schema: p.schema as SchemaObject,
      example: p.example,
    }),
  );
  const media = (requestBodyOf(bundle, operation)?.content as Record<string, Json> | undefined)?.["application/json"];
  const schema = media?.schema as SchemaObject | undefined;
  const examples = [
    ...(media?.example === undefined ? [] : [media.example]),
    ...Object.values((media?.examples as Record<string, Json> | undefined) ?? {}).map((e) => deref(bundle, e).value),
    ...(((schema && deref(bundle, schema).examples) as unknown[] | undefined) ?? []),
  ];
  return {
    operation,
    operationId: operation.operationId,
    method: operation.method.toUpperCase(),
    path: operation.path,
    pathParameters: parameters.filter((p) => p.in === "path"),
    queryParameters: parameters.filter((p) => p.in === "query"),
    body: schema ? { schema, examples: dedupe(examples) } : undefined,
    statuses: new Set([...responsesOf(bundle, operation).keys()].map(Number)),
  };
}

function dedupe(values: unknown[]): unknown[] {
  return [...new Map(values.map((value) => [JSON.stringify(value), value])).values()];
}

/** Every operation of the spec, in document order. */
export const operationShapes: OperationShape[] = specOperations.map(shapeOf);

/** A schema with `$ref`s followed. */
export const resolve = (schema: unknown): SchemaObject => deref<SchemaObject>(bundle, schema);

/** The members of a union (`oneOf`/`anyOf`), resolved; none for a schema that is not one. */
export function unionMembers(schema: SchemaObject): SchemaObject[] {
  const members = (schema.oneOf ?? schema.anyOf) as unknown[] | undefined;
  return members ? members.map(resolve) : [];
}

export type JsonType = "null" | "boolean" | "integer" | "number" | "string" | "array" | "object";

/** The JSON types a schema allows (through unions); every type when it names none. */
export function typesOf(schema: SchemaObject): Set<JsonType> {
  const members = unionMembers(schema);
  if (members.length > 0) return new Set(members.flatMap((m) => [...typesOf(m)]));
  if (schema.const !== undefined || schema.enum !== undefined) {
    const values = (schema.enum as unknown[] | undefined) ?? [schema.const];
    return new Set(values.map(jsonTypeOf));
  }
  const type = schema.type as JsonType | JsonType[] | undefined;
  if (type === undefined) return new Set(["null", "boolean", "integer", "number", "string", "array", "object"]);
  const types = new Set(Array.isArray(type) ? type : [type]);
  if (types.has("number")) types.add("integer");
  return types;
}

export function jsonTypeOf(value: unknown): JsonType {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value as JsonType;
}
