/**
 * JSON Schema (2020-12) validation for the JSON evaluator. A schema is compiled once and reused for every row
 * (compiling is far slower than validating); the cache is keyed by the schema's JSON text and bounded, and each
 * schema gets its own ajv instance so that schemas declaring the same `$id` cannot clash and an evicted schema
 * leaves nothing behind.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

export type CompiledSchema = { validate: (value: unknown) => string | null } | { error: string };

const CACHED_SCHEMAS = 100;
/** How many validation errors a reason lists. */
const LISTED_ERRORS = 5;

const cache = new Map<string, CompiledSchema>();

export function validatorFor(schema: Record<string, unknown>): CompiledSchema {
  const key = JSON.stringify(schema);
  let compiled = cache.get(key);
  if (compiled) {
    cache.delete(key); // re-inserted below: the Map's order is least recently used first
  } else {
    compiled = compile(schema);
    if (cache.size >= CACHED_SCHEMAS) cache.delete(cache.keys().next().value as string);
  }
  cache.set(key, compiled);
  return compiled;
}

function compile(schema: Record<string, unknown>): CompiledSchema {
  // Not strict: schemas written by users often carry annotations ajv does not know (e.g. `example`).
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats.default(ajv);
  try {
    const check = ajv.compile(schema);
    return {
      validate: (value) => {
        if (check(value)) return null;
        const errors = check.errors ?? [];
        const listed = ajv.errorsText(errors.slice(0, LISTED_ERRORS), { dataVar: "output" });
        return errors.length > LISTED_ERRORS ? `${listed} (and ${errors.length - LISTED_ERRORS} more)` : listed;
      },
    };
  } catch (error) {
    return { error: (error as Error).message };
  }
}
