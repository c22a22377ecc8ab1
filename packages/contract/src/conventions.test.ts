/** The API-wide decisions of openapi/description.md, checked on every operation. */
import { describe, expect, it } from "vitest";
import { openapiDocument } from "./index.ts";
import {
  fieldOf,
  type Operation,
  operationsOf,
  parametersOf,
  requestSchemaOf,
  resolveSchema,
  responseSchemaOf,
  responsesOf,
} from "./testing/spec.ts";

const operations = operationsOf().map((op) => [op.operationId, op] as const);

function expectedSuccess(op: Operation): string {
  if (op.operationId === "createEvaluation" || op.operationId === "fetchDynamicColumns") return "202";
  if (op.method === "delete") return "204";
  if (op.method === "post" && op.operationId.startsWith("create") && !op.path.startsWith("/logs/")) return "201";
  return "200";
}

describe.each(operations)("%s", (_, op) => {
  it("answers the conventional success status, with X-Request-Id and the RateLimit headers", () => {
    const success = [...responsesOf(op).entries()].filter(([status]) => status.startsWith("2"));
    expect(success.map(([status]) => status)).toEqual([expectedSuccess(op)]);
    const [status, response] = success[0] as [string, Record<string, unknown>];
    expect(Object.keys((response.headers as object) ?? {})).toEqual(
      expect.arrayContaining(["X-Request-Id", "RateLimit-Policy", "RateLimit"]),
    );
    expect(response.content === undefined).toBe(status === "204");
  });

  it("declares the errors it can answer", () => {
    const statuses = [...responsesOf(op).keys()];
    const expected = ["400", "401", "403", "429", "500"];
    if (namesOtherResources(op)) expected.push("404");
    if (op.node.requestBody) expected.push("413");
    for (const status of expected) expect(statuses, `declares ${status}`).toContain(status);
  });

  const params = parametersOf(op);
  const bodyFields = (() => {
    const schema = requestSchemaOf(op);
    return schema && resolveSchema(schema).properties ? schema : undefined;
  })();
  const pageSize = params.get("query:limit")?.schema ?? (bodyFields && tryField(bodyFields, "limit"));
  if (pageSize) {
    it("pages with limit 1–200, default 50, and answers pagination", () => {
      expect(resolveSchema(pageSize)).toMatchObject({ minimum: 1, maximum: 200, default: 50 });
      expect(fieldOf(responseSchemaOf(op, "200"), "pagination").required).toBe(true);
    });
  }
  const sort = params.get("query:sort")?.schema ?? (bodyFields && tryField(bodyFields, "sort"));
  if (sort) {
    it("sorts newest first by default", () => {
      // Sessions and users are groups of traces: their newest is the one whose latest trace is newest.
      const groups = /\/(sessions|users)$/.test(op.path);
      const newest = op.path.startsWith("/logs/") ? "startedAt:desc" : groups ? "lastSeenAt:desc" : "createdAt:desc";
      expect(resolveSchema(sort).default).toBe(newest);
    });
  }
});

/** Whether the request names a resource by id (path, query or a top-level body field), which may be missing. */
function namesOtherResources(op: Operation): boolean {
  const params = [...parametersOf(op).keys()].some((key) => /Id$/.test(key));
  const body = requestSchemaOf(op);
  const fields = body ? Object.keys((resolveSchema(body).properties as object) ?? {}) : [];
  return op.pathParameters.length > 0 || params || fields.some((name) => /Id$/.test(name));
}

function tryField(schema: unknown, name: string) {
  try {
    return fieldOf(schema, name).schema;
  } catch {
    return undefined;
  }
}

describe("numbers", () => {
  it("bounds every integer by Number.MAX_SAFE_INTEGER at most: the largest a JSON number carries exactly here", () => {
    const unbounded: string[] = [];
    (function walk(node: unknown, at: string): void {
      if (Array.isArray(node)) {
        for (const [index, item] of node.entries()) walk(item, `${at}/${index}`);
        return;
      }
      if (node === null || typeof node !== "object") return;
      const schema = node as { type?: unknown; maximum?: unknown };
      const types = Array.isArray(schema.type) ? schema.type : [schema.type];
      const maximum = typeof schema.maximum === "number" ? schema.maximum : Number.POSITIVE_INFINITY;
      if (types.includes("integer") && maximum > Number.MAX_SAFE_INTEGER) unbounded.push(at);
      for (const [key, child] of Object.entries(node)) walk(child, `${at}/${key}`);
    })(openapiDocument, "");
    expect(unbounded).toEqual([]);
  });
});
