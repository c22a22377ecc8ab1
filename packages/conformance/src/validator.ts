/**
 * Checks a response against the bundled spec with ajv (JSON Schema 2020-12), independently of the server's zod:
 * the status must be declared by the operation, the body must validate against that status's schema, every
 * declared header (X-Request-Id, Retry-After) must be present and valid, a client's UUID request id must be
 * echoed, and an error's code must be the one the spec's table gives that status.
 */
import { createSchemaValidator } from "@pharos/contract/schema-validator";
import { bundle, deref, type Json, responsesOf, type SchemaObject, type SpecOperation } from "./spec.ts";

/** openapi/description.md, "Errors": each code has one status. */
export const STATUS_OF_ERROR_CODE = {
  VALIDATION_ERROR: 400,
  INVALID_CURSOR: 400,
  AUTHENTICATION_REQUIRED: 401,
  FORBIDDEN: 403,
  RESOURCE_NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  PROVIDER_ERROR: 502,
  OVERLOADED: 503,
} as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const { validatorFor, schemaErrors: errorsOf } = createSchemaValidator(bundle);

/** ajv's complaints about `value`, or undefined when it validates. */
export const schemaErrors = (schema: SchemaObject, value: unknown) => errorsOf(schema, value, "body");

export interface ResponseProblem {
  operationId: string;
  status: number;
  problem: string;
}

/** Everything wrong with `response` as an answer of `operation` to `request`; empty when it conforms. */
export async function checkResponse(
  operation: SpecOperation,
  response: Response,
  request?: Request,
): Promise<string[]> {
  const problems: string[] = [];
  const declared = responsesOf(bundle, operation).get(String(response.status));
  if (!declared) {
    const statuses = [...responsesOf(bundle, operation).keys()].join(", ");
    return [`status ${response.status} is not declared (declared: ${statuses})`];
  }

  for (const [name, node] of Object.entries((declared.headers as Json | undefined) ?? {})) {
    const header = deref<Json>(bundle, node);
    const raw = response.headers.get(name);
    if (raw === null) {
      problems.push(`header ${name} is missing`);
      continue;
    }
    const schema = header.schema as SchemaObject;
    const value = deref<Json>(bundle, schema).type === "integer" && /^-?\d+$/.test(raw) ? Number(raw) : raw;
    const error = schemaErrors(schema, value);
    if (error) problems.push(`header ${name} (${raw}): ${error}`);
  }
  // Every response carries X-Request-Id, whether or not a response forgot to declare it.
  const requestId = response.headers.get("X-Request-Id");
  if (requestId === null) {
    if (!problems.includes("header X-Request-Id is missing")) problems.push("header X-Request-Id is missing");
  } else {
    const sent = request?.headers.get("X-Request-Id");
    if (sent && UUID.test(sent) && sent !== requestId) {
      problems.push(`X-Request-Id ${requestId} does not echo the client's ${sent}`);
    }
  }

  const text = await response.clone().text();
  const content = declared.content as Record<string, Json> | undefined;
  if (!content) {
    if (text !== "") problems.push(`status ${response.status} declares no body but got ${text.slice(0, 200)}`);
    return problems;
  }
  const type = response.headers.get("Content-Type") ?? "";
  // NDJSON (POST /logs/spans/export): the schema is one line's, and every line must be valid against it.
  const ndjson = content["application/x-ndjson"];
  if (ndjson && /^application\/x-ndjson\b/i.test(type)) {
    if (text !== "" && !text.endsWith("\n")) problems.push("NDJSON body does not end with a newline");
    for (const [index, line] of (text.endsWith("\n") ? text.slice(0, -1) : text).split("\n").entries()) {
      if (text === "") break;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        problems.push(`NDJSON line ${index + 1} is not JSON: ${line.slice(0, 200)}`);
        continue;
      }
      const error = schemaErrors(ndjson.schema as SchemaObject, value);
      if (error) problems.push(`NDJSON line ${index + 1} does not match the schema: ${error}`);
    }
    return problems;
  }
  // A binary media type (OTLP's application/x-protobuf): its schema describes bytes, which JSON Schema cannot check.
  const binary = Object.keys(content).find(
    (name) => name !== "application/json" && type.toLowerCase().startsWith(name),
  );
  if (binary !== undefined) return problems;
  const media = content["application/json"];
  if (!media || !/^application\/json\b/i.test(type)) {
    problems.push(`Content-Type ${type || "(none)"} is not a declared media type (${Object.keys(content).join(", ")})`);
    return problems;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    problems.push(`body is not JSON: ${text.slice(0, 200)}`);
    return problems;
  }
  const error = schemaErrors(media.schema as SchemaObject, body);
  if (error) problems.push(`body does not match the schema: ${error}`);

  const code = (body as { error?: { code?: unknown } } | null)?.error?.code;
  if (response.status >= 400 && typeof code === "string") {
    const expected = STATUS_OF_ERROR_CODE[code as keyof typeof STATUS_OF_ERROR_CODE];
    if (expected !== undefined && expected !== response.status) {
      problems.push(`error code ${code} belongs to status ${expected}, not ${response.status}`);
    }
  }
  return problems;
}

export class ConformanceError extends Error {
  constructor(
    readonly operationId: string,
    readonly status: number,
    readonly problems: string[],
  ) {
    super(`${operationId} answered ${status} against the spec:\n- ${problems.join("\n- ")}`);
    this.name = "ConformanceError";
  }
}
