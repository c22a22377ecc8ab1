/**
 * Reading the bundled document in tests: dereferencing, walking operations, and an ajv (JSON Schema 2020-12)
 * validator that is independent of the generated zod schemas.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { openapiDocument } from "../index.ts";

export type SchemaObject = Record<string, unknown>;
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

const SCHEMA_REF = "#/components/schemas/";
const DEFS_ID = "https://pharos.invalid/schemas";

/** Rewrites component refs so that schemas from anywhere in the document resolve against one registered root. */
function portable(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(portable);
  if (schema === null || typeof schema !== "object") return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === "$ref" && typeof value === "string" && value.startsWith(SCHEMA_REF)
        ? `${DEFS_ID}#/$defs/${value.slice(SCHEMA_REF.length)}`
        : portable(value),
    ]),
  );
}

function createAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true, strictRequired: false });
  addFormats.default(ajv);
  // OpenAPI's own keywords inside Schema Objects; they carry no validation.
  ajv.addKeyword({ keyword: "discriminator" });
  ajv.addKeyword({ keyword: "example" });
  const components = (document.components as Json).schemas as Json;
  ajv.addSchema({ $id: DEFS_ID, $defs: portable(components) as Json });
  return ajv;
}

const ajv = createAjv();
const compiled = new WeakMap<object, ValidateFunction>();

/** An ajv validator for any Schema Object of the document. */
export function validatorFor(schema: SchemaObject): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(portable(schema) as SchemaObject);
    compiled.set(schema, validate);
  }
  return validate;
}

export function schemaErrors(schema: SchemaObject, value: unknown): string | undefined {
  const validate = validatorFor(schema);
  return validate(value) ? undefined : ajv.errorsText(validate.errors);
}

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
