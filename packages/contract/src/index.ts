/** The Pharos contract, generated from openapi/: the bundled document, types, zod schemas and routes. */
import openapiDocument from "../openapi.json" with { type: "json" };

export { type OperationId, operations } from "./generated/operations.ts";
export * as schemas from "./generated/routes.ts";
export type { components, operations as operationTypes, paths } from "./generated/types.ts";
export { openapiDocument };
