/** Every example the document carries, with the schema it must satisfy and where it sits. */
import {
  deref,
  document,
  type Operation,
  operationsOf,
  parametersOf,
  requestSchemaOf,
  responsesOf,
  type SchemaObject,
} from "./spec.ts";

type Json = Record<string, unknown>;

export interface Example {
  where: string;
  schema: SchemaObject;
  value: unknown;
  /** Set for request bodies and responses: which operation and part they belong to. */
  operation?: Operation;
  part?: { kind: "request" } | { kind: "response"; status: string } | { kind: "parameter"; name: string; in: string };
}

function mediaExamples(media: Json | undefined): unknown[] {
  if (!media) return [];
  const named = Object.values((media.examples as Record<string, Json> | undefined) ?? {}).map((e) => deref(e).value);
  return media.example === undefined ? named : [media.example, ...named];
}

export function allExamples(): Example[] {
  const found: Example[] = [];
  const schemas = (document.components as { schemas: Record<string, Json> }).schemas;
  for (const [name, schema] of Object.entries(schemas)) {
    for (const [i, value] of ((schema.examples as unknown[]) ?? []).entries()) {
      found.push({ where: `components.schemas.${name}.examples[${i}]`, schema, value });
    }
  }
  for (const operation of operationsOf()) {
    const id = operation.operationId;
    for (const param of parametersOf(operation).values()) {
      if (param.example !== undefined) {
        found.push({
          where: `${id} parameter ${param.name as string}`,
          schema: param.schema as SchemaObject,
          value: param.example,
          operation,
          part: { kind: "parameter", name: param.name as string, in: param.in as string },
        });
      }
    }
    const body = operation.node.requestBody ? deref(operation.node.requestBody) : undefined;
    const requestMedia = (body?.content as Record<string, Json> | undefined)?.["application/json"];
    for (const value of mediaExamples(requestMedia)) {
      found.push({
        where: `${id} request body`,
        schema: requestSchemaOf(operation) as SchemaObject,
        value,
        operation,
        part: { kind: "request" },
      });
    }
    for (const [status, response] of responsesOf(operation)) {
      const content = response.content as Record<string, Json> | undefined;
      // An NDJSON response's schema and example are one line's (POST /logs/spans/export).
      const media = content?.["application/json"] ?? content?.["application/x-ndjson"];
      for (const value of mediaExamples(media)) {
        found.push({
          where: `${id} response ${status}`,
          schema: media?.schema as SchemaObject,
          value,
          operation,
          part: { kind: "response", status },
        });
      }
      for (const [header, node] of Object.entries((response.headers as Record<string, Json>) ?? {})) {
        const h = deref(node);
        if (h.example !== undefined) {
          found.push({
            where: `${id} response ${status} header ${header}`,
            schema: h.schema as SchemaObject,
            value: h.example,
          });
        }
      }
    }
  }
  return found;
}
