/** The bundled spec as the kit reads it: operations by id and by route, and `$ref` resolution. */
import { openapiDocument } from "@pharos/contract";

export type Json = Record<string, unknown>;
export type SchemaObject = Json;

export const HTTP_METHODS = ["get", "put", "post", "delete", "patch"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface SpecOperation {
  operationId: string;
  method: HttpMethod;
  /** The path template relative to the server URL (`/projects/{projectId}`). */
  path: string;
  node: Json;
  /** Parameters of the path item, shared by its operations. */
  pathItemParameters: unknown[];
}

export const bundle = openapiDocument as unknown as Json;

/** Every operation of a document, in document order. `stripPrefix` removes a server prefix such as `/v2`. */
export function operationsOf(document: Json, stripPrefix = ""): SpecOperation[] {
  const result: SpecOperation[] = [];
  for (const [rawPath, item] of Object.entries(document.paths as Record<string, Json>)) {
    const path = stripPrefix && rawPath.startsWith(stripPrefix) ? rawPath.slice(stripPrefix.length) : rawPath;
    for (const method of HTTP_METHODS) {
      const node = item[method] as Json | undefined;
      if (!node) continue;
      result.push({
        operationId: node.operationId as string,
        method,
        path,
        node,
        pathItemParameters: (item.parameters as unknown[] | undefined) ?? [],
      });
    }
  }
  return result;
}

export const specOperations = operationsOf(bundle);
export const specOperationById = new Map(specOperations.map((op) => [op.operationId, op]));
const byRoute = new Map(specOperations.map((op) => [`${op.method.toUpperCase()} ${op.path}`, op]));

/** The spec operation a request was made for (`GET`, `/projects/{projectId}`). */
export function operationForRoute(method: string, pathTemplate: string): SpecOperation | undefined {
  return byRoute.get(`${method.toUpperCase()} ${pathTemplate}`);
}

/** Follows local `$ref`s within `document` until a node without one. */
export function deref<T = Json>(document: Json, node: unknown): T {
  let current = node as Json;
  const seen = new Set<string>();
  while (current && typeof current.$ref === "string") {
    const ref = current.$ref as string;
    if (seen.has(ref)) throw new Error(`$ref cycle at ${ref}`);
    seen.add(ref);
    current = resolvePointer(document, ref) as Json;
  }
  return current as T;
}

export function resolvePointer(document: Json, ref: string): unknown {
  if (!ref.startsWith("#/")) throw new Error(`only local $refs are supported: ${ref}`);
  const found = ref
    .slice(2)
    .split("/")
    .reduce<unknown>((at, key) => (at as Json | undefined)?.[key.replace(/~1/g, "/").replace(/~0/g, "~")], document);
  if (found === undefined) throw new Error(`unresolved $ref ${ref}`);
  return found;
}

/** The responses of an operation by status, dereferenced. */
export function responsesOf(document: Json, operation: SpecOperation): Map<string, Json> {
  const responses = (operation.node.responses as Json | undefined) ?? {};
  return new Map(Object.entries(responses).map(([status, node]) => [status, deref(document, node)]));
}

/** The parameters of an operation (path item's and its own; its own win), dereferenced, keyed `in:name`. */
export function parametersOf(document: Json, operation: SpecOperation): Map<string, Json> {
  const own = (operation.node.parameters as unknown[] | undefined) ?? [];
  const all = [...operation.pathItemParameters, ...own].map((p) => deref(document, p));
  return new Map(all.map((p) => [`${p.in as string}:${p.name as string}`, p]));
}

export function requestBodyOf(document: Json, operation: SpecOperation): Json | undefined {
  return operation.node.requestBody ? deref(document, operation.node.requestBody) : undefined;
}
