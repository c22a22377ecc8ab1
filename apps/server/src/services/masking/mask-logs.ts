/**
 * Masking applied to log writes before they are stored: every string a client sent as data — span content
 * (inside the JSON text of `input`/`output` too, string by string, so it stays JSON), attribute values, tags,
 * events and names — goes through the project's masker. Ids (referenceId, sessionId, …), attribute keys,
 * numbers and the content `type` are kept: they identify and link records rather than carry what users said.
 */
import type { schemas } from "@pharos/contract";
import type { Attributes, SpanInput } from "../logs/log-rows.ts";
import { type CheckedContent, checkBuiltContent, jsonTextFieldsOf } from "../logs/span-content.ts";
import type { Masker } from "./masking-rules.ts";

/** `value` with every string in it masked (object keys kept); the same value when nothing changed. */
function maskDeep(masker: Masker, value: unknown): unknown {
  if (typeof value === "string") return masker.mask(value);
  if (Array.isArray(value)) {
    let changed = false;
    const masked = value.map((item) => {
      const result = maskDeep(masker, item);
      changed ||= result !== item;
      return result;
    });
    return changed ? masked : value;
  }
  if (value !== null && typeof value === "object") {
    let changed = false;
    const masked: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const result = maskDeep(masker, item);
      changed ||= result !== item;
      // defineProperty: a key such as `__proto__` stays a plain key, as JSON.parse made it.
      Object.defineProperty(masked, key, { value: result, enumerable: true, writable: true, configurable: true });
    }
    return changed ? masked : value;
  }
  return value;
}

const maskAttributes = (masker: Masker, attributes: Attributes | undefined) =>
  attributes === undefined ? undefined : (maskDeep(masker, attributes) as Attributes);

const maskStrings = (masker: Masker, strings: readonly string[] | undefined) =>
  strings?.map((text) => masker.mask(text));

/** A span's fields with their data masked. */
export function maskSpanInput<T extends SpanInput>(masker: Masker, span: T): T {
  return {
    ...span,
    name: masker.mask(span.name),
    attributes: maskAttributes(masker, span.attributes),
    tags: maskStrings(masker, span.tags),
    events: maskStrings(masker, span.events),
  };
}

/** A trace's fields with their data masked. */
export function maskTraceInput(masker: Masker, trace: schemas.LogTraceInput): schemas.LogTraceInput {
  return {
    ...trace,
    name: masker.mask(trace.name),
    attributes: maskAttributes(masker, trace.attributes),
    tags: maskStrings(masker, trace.tags),
  };
}

/** A trace update's attribute values and tags masked, so that they match what the writes stored. */
export function maskTraceUpdate(masker: Masker, update: schemas.LogTraceUpdate): schemas.LogTraceUpdate {
  return {
    ...update,
    attributes: update.attributes?.map((operation) =>
      operation.operation === "create" && typeof operation.value === "string"
        ? { ...operation, value: masker.mask(operation.value) }
        : operation,
    ),
    tags: update.tags?.map((operation) => ({ ...operation, tag: masker.mask(operation.tag) })),
  };
}

/** A checked content with its strings masked, its search columns taken from the masked form. */
export function maskContent(masker: Masker, checked: CheckedContent): CheckedContent {
  const content = JSON.parse(checked.json) as Record<string, unknown>;
  const jsonTextFields = new Set(jsonTextFieldsOf(checked.type));
  let changed = false;
  let parsedOutput: unknown;
  for (const [key, value] of Object.entries(content)) {
    if (key === "type") continue;
    let masked: unknown;
    if (jsonTextFields.has(key) && typeof value === "string") {
      const parsed = JSON.parse(value) as unknown;
      const maskedValue = maskDeep(masker, parsed);
      if (key === "output") parsedOutput = maskedValue;
      masked = maskedValue === parsed ? value : JSON.stringify(maskedValue);
    } else {
      masked = maskDeep(masker, value);
    }
    if (masked !== value) {
      changed = true;
      Object.defineProperty(content, key, { value: masked, enumerable: true, writable: true, configurable: true });
    }
  }
  if (!changed) return checked;
  const result = checkBuiltContent(content as schemas.LogSpanContent, parsedOutput);
  return { ...result, tooLarge: checked.tooLarge || result.tooLarge };
}
