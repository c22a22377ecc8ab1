import SwaggerParser from "@apidevtools/swagger-parser";
import { describe, expect, it } from "vitest";
import { operations } from "./index.ts";
import { document, operationsOf, validatorFor } from "./testing/spec.ts";

describe("the bundled document", () => {
  it("is valid OpenAPI 3.1 (official schema and reference checks, by swagger-parser)", async () => {
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
  });

  it("declares OpenAPI 3.1, version 2.0.0 and a /v2 server", () => {
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
    expect((document.info as { version: string }).version).toBe("2.0.0");
    for (const server of document.servers as { url: string }[]) expect(server.url).toMatch(/\/v2$/);
  });

  it("has only Schema Objects that compile as JSON Schema 2020-12 in ajv's strict mode", () => {
    const schemas = (document.components as { schemas: Record<string, object> }).schemas;
    for (const [name, schema] of Object.entries(schemas)) {
      expect(() => validatorFor(schema as Record<string, unknown>), name).not.toThrow();
    }
  });

  it("requires bearer auth on every operation", () => {
    expect(document.security).toEqual([{ bearerAuth: [] }]);
    for (const op of operationsOf()) {
      expect(op.node.security, `${op.operationId} must not override security`).toBeUndefined();
    }
  });

  it("has unique operationIds, each bound to a generated route", () => {
    const ids = operationsOf().map((op) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(Object.keys(operations).sort()).toEqual([...ids].sort());
  });
});
