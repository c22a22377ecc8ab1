/**
 * JSON Schema (2020-12) validation of values against the Schema Objects of an OpenAPI document, with ajv:
 * the oracle the contract tests and the conformance kit use, independent of the server's generated zod.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

type Json = Record<string, unknown>;
export type SchemaObject = Json;

const SCHEMA_REF = "#/components/schemas/";

export interface SchemaValidator {
  /** A compiled validator for any Schema Object of the document (cached per schema object). */
  validatorFor(schema: SchemaObject): ValidateFunction;
  /** ajv's complaints about `value`, or undefined when it validates. */
  schemaErrors(schema: SchemaObject, value: unknown, dataVar?: string): string | undefined;
}

export function createSchemaValidator(document: Json): SchemaValidator {
  const componentsId = "https://pharos.invalid/components.json";
  // Component refs are rewritten to one registered root, so a schema from anywhere in the document resolves.
  const portable = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(portable);
    if (node === null || typeof node !== "object") return node;
    return Object.fromEntries(
      Object.entries(node).map(([key, value]) => [
        key,
        key === "$ref" && typeof value === "string" && value.startsWith(SCHEMA_REF)
          ? `${componentsId}#/$defs/${value.slice(SCHEMA_REF.length)}`
          : portable(value),
      ]),
    );
  };
  // strictRequired is off: a `required` name may be declared by a sibling union variant's properties.
  const ajv = new Ajv2020({ strict: true, allErrors: true, strictRequired: false });
  addFormats.default(ajv);
  // OpenAPI's own keywords inside Schema Objects; they validate nothing.
  ajv.addKeyword({ keyword: "discriminator" });
  ajv.addKeyword({ keyword: "example" });
  ajv.addSchema({ $id: componentsId, $defs: portable((document.components as Json).schemas) as Json });

  const compiled = new WeakMap<object, ValidateFunction>();
  const validatorFor = (schema: SchemaObject) => {
    let validate = compiled.get(schema);
    if (!validate) {
      validate = ajv.compile(portable(schema) as SchemaObject);
      compiled.set(schema, validate);
    }
    return validate;
  };
  return {
    validatorFor,
    schemaErrors(schema, value, dataVar = "data") {
      const validate = validatorFor(schema);
      return validate(value) ? undefined : ajv.errorsText(validate.errors, { dataVar });
    },
  };
}
