/**
 * One fuzz case of an operation and the request it becomes. A case starts from a valid request (the world's
 * ids in the path and required query parameters, one of the spec's example bodies) and changes one thing
 * about it: fields of the body, the whole body, parameters, or headers.
 */
import * as fc from "fast-check";
import { applyMutations, type BodyMutation, bodyMutations } from "../body/body-mutations.ts";
import { type RawBody, rawBodies } from "../body/raw-bodies.ts";
import type { OperationShape } from "../spec.ts";
import { RawJson, toJsonText, type Value } from "../values/json-value.ts";
import type { World } from "../world.ts";
import { type HeaderMutation, headerMutations } from "./headers.ts";
import type { FuzzRequest } from "./http.ts";
import { type ParameterMutation, parameterMutations, validValueOf } from "./parameters.ts";
import { percentEncode } from "./url-text.ts";

export type FuzzCase =
  | { kind: "body fields"; base: number; mutations: BodyMutation[] }
  | { kind: "whole body"; base: number; raw: RawBody }
  | { kind: "parameters"; mutations: ParameterMutation[] }
  | { kind: "headers"; mutations: HeaderMutation[] };

/** How often each kind of case is drawn, where the operation has what it changes. */
const WEIGHTS = { "body fields": 10, "whole body": 3, parameters: 4, headers: 1 };

export function casesFor(shape: OperationShape, world: World, bodies: Value[]): fc.Arbitrary<FuzzCase> {
  const kinds: fc.WeightedArbitrary<FuzzCase>[] = [];
  if (shape.body) {
    kinds.push({
      weight: WEIGHTS["body fields"],
      arbitrary: bodyMutations(shape.body.schema, bodies).map((c) => ({ kind: "body fields" as const, ...c })),
    });
    kinds.push({
      weight: WEIGHTS["whole body"],
      arbitrary: fc
        .record({ base: fc.nat({ max: bodies.length - 1 }), raw: rawBodies })
        .map((c) => ({ kind: "whole body" as const, ...c })),
    });
  }
  if (shape.pathParameters.length + shape.queryParameters.length > 0 || !shape.body) {
    kinds.push({
      weight: WEIGHTS.parameters,
      arbitrary: parameterMutations(shape, world).map((mutations) => ({ kind: "parameters" as const, mutations })),
    });
  }
  kinds.push({
    weight: WEIGHTS.headers,
    arbitrary: headerMutations(world).map((mutations) => ({ kind: "headers" as const, mutations })),
  });
  return fc.oneof(...kinds).map(printable);
}

/** Shows a case in fast-check's report with long strings cut short and fragments by their label. */
function printable(fuzzCase: FuzzCase): FuzzCase {
  return Object.defineProperty(fuzzCase, fc.toStringMethod, {
    value: () =>
      JSON.stringify(fuzzCase, (_key, value) => {
        if (value instanceof RawJson) return `raw(${value.label.slice(0, 200)})`;
        if (typeof value === "string" && value.length > 200) return `${value.slice(0, 200)}… (${value.length})`;
        if (typeof value === "function") return undefined;
        return value;
      }),
  });
}

const encoder = new TextEncoder();

/** Fields whose values the API keeps unique (per project, trace or workspace). */
const UNIQUE_FIELDS = new Set(["name", "referenceId", "parentReferenceId", "displayName"]);

/**
 * A creation's valid body with a suffix on the values of unique fields (the same suffix for a span's
 * `referenceId` and the `parentReferenceId` naming it), so it is not a 409 for the world's own copy of the
 * example or an earlier case's.
 */
function withUniqueNames(value: Value, suffix: string): Value {
  if (Array.isArray(value)) return value.map((item) => withUniqueNames(item, suffix));
  if (value === null || typeof value !== "object" || value instanceof RawJson) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      UNIQUE_FIELDS.has(key) && typeof item === "string" ? `${item}_${suffix}` : withUniqueNames(item, suffix),
    ]),
  );
}

/**
 * The request a case stands for; `freshIds` name resources made for this case only (world.freshIdsFor), and
 * `serial` tells the case from the others.
 */
export function requestOf(
  shape: OperationShape,
  world: World,
  fuzzCase: FuzzCase,
  validBodies: Value[],
  freshIds: Record<string, string>,
  serial: number,
): FuzzRequest {
  const bodies = shape.operationId.startsWith("create")
    ? validBodies.map((body) => withUniqueNames(body, String(serial)))
    : validBodies;
  const ids = { ...world.ids, ...freshIds };
  const pathValues = new Map(shape.pathParameters.map((p) => [p.name, percentEncode(ids[p.name] ?? "")]));
  const query: [string, string | undefined][] = [];
  for (const parameter of shape.queryParameters) {
    const value = parameter.required ? validValueOf(parameter, world) : undefined;
    if (value !== undefined) query.push([parameter.name, value]);
  }
  const headers: Record<string, string> = { Authorization: `Bearer ${world.apiKey}` };
  let body: FuzzRequest["body"];

  switch (fuzzCase.kind) {
    case "body fields": {
      const value = applyMutations(bodies[fuzzCase.base] as Value, fuzzCase.mutations);
      body = { bytes: encoder.encode(toJsonText(value)), chunked: false };
      headers["Content-Type"] = "application/json";
      break;
    }
    case "whole body": {
      const { raw } = fuzzCase;
      body = { bytes: raw.make(toJsonText(bodies[fuzzCase.base] as Value)), chunked: raw.chunked, label: raw.label };
      if (raw.contentType !== null) headers["Content-Type"] = raw.contentType;
      break;
    }
    case "parameters":
      for (const mutation of fuzzCase.mutations) applyParameter(mutation, pathValues, query);
      break;
    case "headers":
      break;
  }
  if (shape.body && fuzzCase.kind !== "body fields" && fuzzCase.kind !== "whole body") {
    body = { bytes: encoder.encode(toJsonText(bodies[0] as Value)), chunked: false };
    headers["Content-Type"] = "application/json";
  }
  if (fuzzCase.kind === "headers") {
    for (const { name, value } of fuzzCase.mutations) {
      if (value === null) delete headers[name];
      else headers[name] = value;
    }
  }
  const path = shape.path.replace(/\{(\w+)\}/g, (_, name: string) => pathValues.get(name) ?? "");
  const search = query.map(([name, value]) => (value === undefined ? name : `${name}=${value}`)).join("&");
  return {
    method: shape.method,
    url: `${world.baseUrl}${path}${search ? `?${search}` : ""}`,
    headers,
    ...(body && { body }),
  };
}

function applyParameter(
  mutation: ParameterMutation,
  pathValues: Map<string, string>,
  query: [string, string | undefined][],
): void {
  if (mutation.in === "path") {
    pathValues.set(mutation.name, mutation.value);
    return;
  }
  const at = query.findIndex(([name]) => name === mutation.name);
  switch (mutation.op) {
    case "set":
      if (at >= 0) query[at] = [mutation.name, mutation.value];
      else query.push([mutation.name, mutation.value]);
      return;
    case "repeat":
      if (at < 0) query.push([mutation.name, mutation.value]);
      query.push([mutation.name, mutation.value]);
      return;
    case "remove":
      if (at >= 0) query.splice(at, 1);
      return;
    case "bare":
      if (at >= 0) query.splice(at, 1);
      query.push([mutation.name, undefined]);
  }
}
