/**
 * OTLP/HTTP trace requests, read into one plain form whichever encoding they came in:
 * - protobuf, through a reader written for these messages (read-binary.ts: the field numbers from the decoders
 *   protoc-gen-es generated from ../proto, checked by `pnpm check:generated`), which reads exactly what the
 *   generated decoders read, without their reflection;
 * - OTLP/JSON, through our own reader: protobuf-es `fromJson` would read the hex trace and span ids as base64
 *   without an error (OTLP/JSON departs from the proto3 JSON mapping there), so the JSON form is read by hand
 *   with OTLP's rules: hex ids, int64 as a string or a number, enums as numbers (their names taken too),
 *   lowerCamelCase field names, unknown fields ignored.
 * Anything that is not a well-formed request throws an OtlpDecodeError naming where.
 */
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  ExportTraceServiceRequestSchema,
  ExportTraceServiceResponseSchema,
} from "./generated/opentelemetry/proto/collector/trace/v1/trace_service_pb.ts";
import type { AnyValue } from "./generated/opentelemetry/proto/common/v1/common_pb.ts";
import {
  type RawAnyValue,
  type RawKeyValue,
  type RawSpan,
  type RawTraceRequest,
  readTraceRequestBinary,
} from "./read-binary.ts";

/** A decoded attribute value: maps are Maps (keys as sent, in order), bytes are base64 text, empty is null. */
export type OtlpValue = string | number | boolean | null | OtlpValue[] | OtlpMap;
export type OtlpMap = Map<string, OtlpValue>;

export interface OtlpEvent {
  timeUnixNano: bigint;
  name: string;
  attributes: OtlpMap;
}

export interface OtlpLink {
  traceId: string;
  spanId: string;
  attributes: OtlpMap;
}

export interface OtlpSpan {
  /** Lowercase hex of the id as sent (32 characters when well-formed). */
  traceId: string;
  /** Lowercase hex (16 characters when well-formed). */
  spanId: string;
  /** Lowercase hex, or "" for a root span. */
  parentSpanId: string;
  traceState: string;
  name: string;
  /** The proto's SpanKind: 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer (the API's + 1). */
  kind: number;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: OtlpMap;
  events: OtlpEvent[];
  links: OtlpLink[];
  /** 0 unset, 1 ok, 2 error. */
  status: { code: number; message: string };
  droppedAttributesCount: number;
  droppedEventsCount: number;
  droppedLinksCount: number;
}

export interface OtlpScopeSpans {
  scope: { name: string; version: string; attributes: OtlpMap };
  spans: OtlpSpan[];
}

export interface OtlpResourceSpans {
  resource: OtlpMap;
  scopeSpans: OtlpScopeSpans[];
}

export interface OtlpTraceRequest {
  resourceSpans: OtlpResourceSpans[];
}

export class OtlpDecodeError extends Error {
  override readonly name = "OtlpDecodeError";
}

const fail = (path: string, issue: string): never => {
  throw new OtlpDecodeError(`${path}: ${issue}`);
};

// ---------------------------------------------------------------------------------------------------------------
// Protobuf

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

function hexOf(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += HEX[byte];
  return text;
}

/**
 * How deep attribute values (arrays and maps) may nest: deeper is an OtlpDecodeError, so that no value is too
 * deep for the code that stores it as JSON (the request screen's 64 levels are of the body, not of a value).
 */
export const MAX_VALUE_DEPTH = 128;

const tooDeep = (path: string): never =>
  fail(path, `an attribute value nests deeper than ${MAX_VALUE_DEPTH} arrays or maps`);

function valueOfProto(value: RawAnyValue | undefined, depth = 1): OtlpValue {
  if (depth > MAX_VALUE_DEPTH) tooDeep("attribute value");
  const held = value?.value;
  switch (held?.case) {
    case "stringValue":
    case "boolValue":
    case "doubleValue":
      return held.value as string | boolean | number;
    case "intValue":
      return intOf(held.value as bigint);
    case "bytesValue":
      return Buffer.from(held.value as Uint8Array).toString("base64");
    case "arrayValue":
      return (held.value as { values: RawAnyValue[] }).values.map((item) => valueOfProto(item, depth + 1));
    case "kvlistValue":
      return mapOfProto((held.value as { values: RawKeyValue[] }).values, depth + 1);
    default:
      // Unset, or a dictionary-encoded string (profiles only): no value.
      return null;
  }
}

/** An int64 as a number when it is exact, else its decimal text (nothing is rounded away). */
const intOf = (value: bigint): number | string => {
  const number = Number(value);
  return Number.isSafeInteger(number) ? number : value.toString();
};

function mapOfProto(values: readonly RawKeyValue[], depth = 1): OtlpMap {
  const map: OtlpMap = new Map();
  for (const { key, value } of values) map.set(key, valueOfProto(value, depth));
  return map;
}

function spanOfProto(span: RawSpan): OtlpSpan {
  return {
    traceId: hexOf(span.traceId),
    spanId: hexOf(span.spanId),
    parentSpanId: hexOf(span.parentSpanId),
    traceState: span.traceState,
    name: span.name,
    kind: span.kind,
    startTimeUnixNano: span.startTimeUnixNano,
    endTimeUnixNano: span.endTimeUnixNano,
    attributes: mapOfProto(span.attributes),
    events: span.events.map((event) => ({
      timeUnixNano: event.timeUnixNano,
      name: event.name,
      attributes: mapOfProto(event.attributes),
    })),
    links: span.links.map((link) => ({
      traceId: hexOf(link.traceId),
      spanId: hexOf(link.spanId),
      attributes: mapOfProto(link.attributes),
    })),
    status: { code: span.status?.code ?? 0, message: span.status?.message ?? "" },
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}

/**
 * protobuf-es stops at 100 nested messages by default; an attribute level is three (AnyValue, KeyValueList,
 * KeyValue), so allow MAX_VALUE_DEPTH levels of attributes and judge their depth in the conversion, with its own
 * message.
 */
const RECURSION_LIMIT = 3 * MAX_VALUE_DEPTH + 16;

/** The plain form of a request read from protobuf (by either reader: they give the same messages). */
function requestOfProto(request: RawTraceRequest): OtlpTraceRequest {
  return {
    resourceSpans: request.resourceSpans.map((resourceSpans) => ({
      resource: mapOfProto(resourceSpans.resource?.attributes ?? []),
      scopeSpans: resourceSpans.scopeSpans.map((scopeSpans) => ({
        scope: {
          name: scopeSpans.scope?.name ?? "",
          version: scopeSpans.scope?.version ?? "",
          attributes: mapOfProto(scopeSpans.scope?.attributes ?? []),
        },
        spans: scopeSpans.spans.map(spanOfProto),
      })),
    })),
  };
}

function decodeWith(read: (bytes: Uint8Array) => RawTraceRequest, bytes: Uint8Array): OtlpTraceRequest {
  let request: RawTraceRequest;
  try {
    request = read(bytes);
  } catch (error) {
    if (error instanceof OtlpDecodeError) throw error;
    // protobuf-es throws plain Errors for premature ends, bad wire types and invalid UTF-8; a RangeError
    // (nesting deep enough to exhaust the stack) is the same thing for the client: not a request we can read.
    throw new OtlpDecodeError(`protobuf: ${(error as Error).message}`);
  }
  return requestOfProto(request);
}

/** Reads an `ExportTraceServiceRequest` in protobuf; throws OtlpDecodeError when the bytes are not one. */
export function decodeTraceRequest(bytes: Uint8Array): OtlpTraceRequest {
  return decodeWith((body) => readTraceRequestBinary(body, RECURSION_LIMIT), bytes);
}

/**
 * The same, through protobuf-es's generic (reflective) `fromBinary`: the reference `decodeTraceRequest` is
 * tested against (it decodes identically, only slower).
 */
export function decodeTraceRequestWithFromBinary(bytes: Uint8Array): OtlpTraceRequest {
  return decodeWith(
    (body) => fromBinary(ExportTraceServiceRequestSchema, body, { recursionLimit: RECURSION_LIMIT }),
    bytes,
  );
}

// ---------------------------------------------------------------------------------------------------------------
// OTLP/JSON

type Json = unknown;

function objectAt(value: Json, path: string): Record<string, Json> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value)) return fail(path, "must be an object");
  return value as Record<string, Json>;
}

function arrayAt(value: Json, path: string): Json[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return fail(path, "must be an array");
  return value;
}

function stringAt(value: Json, path: string): string {
  if (value === undefined || value === null) return "";
  if (typeof value !== "string") return fail(path, "must be a string");
  return value;
}

const UNSIGNED = /^\d{1,20}$/;
const SIGNED = /^-?\d{1,19}$/;

/** A fixed64/uint64: a decimal string or a non-negative whole number. */
function uint64At(value: Json, path: string): bigint {
  if (value === undefined || value === null) return 0n;
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  // A number past 2^53 was already rounded by JSON.parse: still a time, to within a microsecond or so.
  if (typeof value === "number" && Number.isInteger(value) && value >= 0 && value < 2 ** 64) return BigInt(value);
  if (typeof value === "string" && UNSIGNED.test(value)) {
    const parsed = BigInt(value);
    if (parsed < 2n ** 64n) return parsed;
  }
  return fail(path, "must be an unsigned 64-bit integer (a decimal string or a number)");
}

function int64At(value: Json, path: string): number | string {
  if (typeof value === "number" && Number.isInteger(value)) {
    return Number.isSafeInteger(value) ? value : BigInt(value).toString();
  }
  if (typeof value === "string" && SIGNED.test(value)) {
    const parsed = BigInt(value);
    if (parsed >= -(2n ** 63n) && parsed < 2n ** 63n) return intOf(parsed);
  }
  return fail(path, "must be a 64-bit integer (a decimal string or a number)");
}

function uint32At(value: Json, path: string): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= 0xffff_ffff) return value;
  if (typeof value === "string" && /^\d{1,10}$/.test(value) && Number(value) <= 0xffff_ffff) return Number(value);
  return fail(path, "must be an unsigned 32-bit integer");
}

function doubleAt(value: Json, path: string): number {
  if (typeof value === "number") return value;
  if (value === "NaN") return Number.NaN;
  if (value === "Infinity") return Number.POSITIVE_INFINITY;
  if (value === "-Infinity") return Number.NEGATIVE_INFINITY;
  if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value);
  return fail(path, "must be a number");
}

/** An enum: its number, or its name from `names` (index = number). */
function enumAt(value: Json, path: string, names: readonly string[]): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === "number" && Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31) return value;
  if (typeof value === "string") {
    const index = names.indexOf(value);
    if (index >= 0) return index;
  }
  return fail(path, `must be an enum number (or one of ${names.join(", ")})`);
}

const SPAN_KINDS = [
  "SPAN_KIND_UNSPECIFIED",
  "SPAN_KIND_INTERNAL",
  "SPAN_KIND_SERVER",
  "SPAN_KIND_CLIENT",
  "SPAN_KIND_PRODUCER",
  "SPAN_KIND_CONSUMER",
];
const STATUS_CODES = ["STATUS_CODE_UNSET", "STATUS_CODE_OK", "STATUS_CODE_ERROR"];

const HEX_ID = /^(?:[0-9a-fA-F]{2})*$/;

/** A trace or span id: hex text (any even length here; the length is judged per span by the caller). */
function idAt(value: Json, path: string): string {
  const text = stringAt(value, path);
  if (!HEX_ID.test(text)) fail(path, "must be hex text (OTLP/JSON ids are hex, not base64)");
  return text.toLowerCase();
}

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

function valueOfJson(value: Json, path: string, depth: number): OtlpValue {
  if (depth > MAX_VALUE_DEPTH) tooDeep(path);
  const any = objectAt(value, path);
  if (any === undefined) return null;
  if ("stringValue" in any && any.stringValue !== null) return stringAt(any.stringValue, `${path}.stringValue`);
  if ("boolValue" in any && any.boolValue !== null) {
    if (typeof any.boolValue !== "boolean") return fail(`${path}.boolValue`, "must be a boolean");
    return any.boolValue;
  }
  if ("intValue" in any && any.intValue !== null) return int64At(any.intValue, `${path}.intValue`);
  if ("doubleValue" in any && any.doubleValue !== null) return doubleAt(any.doubleValue, `${path}.doubleValue`);
  if ("arrayValue" in any && any.arrayValue !== null) {
    const array = objectAt(any.arrayValue, `${path}.arrayValue`);
    return arrayAt(array?.values, `${path}.arrayValue.values`).map((item, index) =>
      valueOfJson(item, `${path}.arrayValue.values.${index}`, depth + 1),
    );
  }
  if ("kvlistValue" in any && any.kvlistValue !== null) {
    const list = objectAt(any.kvlistValue, `${path}.kvlistValue`);
    return mapOfJson(list?.values, `${path}.kvlistValue.values`, depth + 1);
  }
  if ("bytesValue" in any && any.bytesValue !== null) {
    const text = stringAt(any.bytesValue, `${path}.bytesValue`);
    if (!BASE64.test(text)) fail(`${path}.bytesValue`, "must be base64 text");
    return text;
  }
  return null;
}

function mapOfJson(values: Json, path: string, depth = 1): OtlpMap {
  const map: OtlpMap = new Map();
  arrayAt(values, path).forEach((item, index) => {
    const at = `${path}.${index}`;
    const keyValue = objectAt(item, at) ?? {};
    map.set(stringAt(keyValue.key, `${at}.key`), valueOfJson(keyValue.value, `${at}.value`, depth));
  });
  return map;
}

function spanOfJson(value: Json, path: string): OtlpSpan {
  const span = objectAt(value, path) ?? {};
  const status = objectAt(span.status, `${path}.status`) ?? {};
  return {
    traceId: idAt(span.traceId, `${path}.traceId`),
    spanId: idAt(span.spanId, `${path}.spanId`),
    parentSpanId: idAt(span.parentSpanId, `${path}.parentSpanId`),
    traceState: stringAt(span.traceState, `${path}.traceState`),
    name: stringAt(span.name, `${path}.name`),
    kind: enumAt(span.kind, `${path}.kind`, SPAN_KINDS),
    startTimeUnixNano: uint64At(span.startTimeUnixNano, `${path}.startTimeUnixNano`),
    endTimeUnixNano: uint64At(span.endTimeUnixNano, `${path}.endTimeUnixNano`),
    attributes: mapOfJson(span.attributes, `${path}.attributes`),
    events: arrayAt(span.events, `${path}.events`).map((item, index) => {
      const at = `${path}.events.${index}`;
      const event = objectAt(item, at) ?? {};
      return {
        timeUnixNano: uint64At(event.timeUnixNano, `${at}.timeUnixNano`),
        name: stringAt(event.name, `${at}.name`),
        attributes: mapOfJson(event.attributes, `${at}.attributes`),
      };
    }),
    links: arrayAt(span.links, `${path}.links`).map((item, index) => {
      const at = `${path}.links.${index}`;
      const link = objectAt(item, at) ?? {};
      return {
        traceId: idAt(link.traceId, `${at}.traceId`),
        spanId: idAt(link.spanId, `${at}.spanId`),
        attributes: mapOfJson(link.attributes, `${at}.attributes`),
      };
    }),
    status: {
      code: enumAt(status.code, `${path}.status.code`, STATUS_CODES),
      message: stringAt(status.message, `${path}.status.message`),
    },
    droppedAttributesCount: uint32At(span.droppedAttributesCount, `${path}.droppedAttributesCount`),
    droppedEventsCount: uint32At(span.droppedEventsCount, `${path}.droppedEventsCount`),
    droppedLinksCount: uint32At(span.droppedLinksCount, `${path}.droppedLinksCount`),
  };
}

/** Reads an `ExportTraceServiceRequest` in OTLP/JSON (already parsed); throws OtlpDecodeError naming the field. */
export function readTraceRequestJson(value: Json): OtlpTraceRequest {
  const request = objectAt(value, "$") ?? fail("$", "must be an ExportTraceServiceRequest object");
  return {
    resourceSpans: arrayAt(request.resourceSpans, "resourceSpans").map((item, index) => {
      const at = `resourceSpans.${index}`;
      const resourceSpans = objectAt(item, at) ?? {};
      const resource = objectAt(resourceSpans.resource, `${at}.resource`) ?? {};
      return {
        resource: mapOfJson(resource.attributes, `${at}.resource.attributes`),
        scopeSpans: arrayAt(resourceSpans.scopeSpans, `${at}.scopeSpans`).map((scopeItem, scopeIndex) => {
          const scopeAt = `${at}.scopeSpans.${scopeIndex}`;
          const scopeSpans = objectAt(scopeItem, scopeAt) ?? {};
          const scope = objectAt(scopeSpans.scope, `${scopeAt}.scope`) ?? {};
          return {
            scope: {
              name: stringAt(scope.name, `${scopeAt}.scope.name`),
              version: stringAt(scope.version, `${scopeAt}.scope.version`),
              attributes: mapOfJson(scope.attributes, `${scopeAt}.scope.attributes`),
            },
            spans: arrayAt(scopeSpans.spans, `${scopeAt}.spans`).map((span, spanIndex) =>
              spanOfJson(span, `${scopeAt}.spans.${spanIndex}`),
            ),
          };
        }),
      };
    }),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Writing requests (for clients, tests and benchmarks)

function anyValueOf(value: OtlpValue): AnyValue {
  const message = (value: AnyValue["value"]) => ({ value }) as AnyValue;
  if (typeof value === "string") return message({ case: "stringValue", value });
  if (typeof value === "boolean") return message({ case: "boolValue", value });
  if (typeof value === "number") {
    return Number.isInteger(value)
      ? message({ case: "intValue", value: BigInt(value) })
      : message({ case: "doubleValue", value });
  }
  if (Array.isArray(value)) {
    return message({ case: "arrayValue", value: { values: value.map(anyValueOf) } as never });
  }
  if (value instanceof Map) return message({ case: "kvlistValue", value: { values: keyValuesOf(value) } as never });
  return message({ case: undefined });
}

const keyValuesOf = (map: OtlpMap) => [...map].map(([key, value]) => ({ key, value: anyValueOf(value) }));

const bytesOf = (hex: string) => Uint8Array.from(Buffer.from(hex, "hex"));

/** An `ExportTraceServiceRequest` in protobuf, from the plain form `decodeTraceRequest` reads. */
export function encodeTraceRequest(request: OtlpTraceRequest): Uint8Array {
  return toBinary(
    ExportTraceServiceRequestSchema,
    create(ExportTraceServiceRequestSchema, {
      resourceSpans: request.resourceSpans.map((resourceSpans) => ({
        resource: { attributes: keyValuesOf(resourceSpans.resource) },
        scopeSpans: resourceSpans.scopeSpans.map((scopeSpans) => ({
          scope: { ...scopeSpans.scope, attributes: keyValuesOf(scopeSpans.scope.attributes) },
          spans: scopeSpans.spans.map((span) => ({
            ...span,
            traceId: bytesOf(span.traceId),
            spanId: bytesOf(span.spanId),
            parentSpanId: bytesOf(span.parentSpanId),
            attributes: keyValuesOf(span.attributes),
            events: span.events.map((event) => ({ ...event, attributes: keyValuesOf(event.attributes) })),
            links: span.links.map((link) => ({
              traceId: bytesOf(link.traceId),
              spanId: bytesOf(link.spanId),
              attributes: keyValuesOf(link.attributes),
            })),
          })),
        })),
      })),
    }),
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Responses

export interface TraceResponse {
  /** Present only when some spans were rejected (OTLP: a full success leaves it unset). */
  partialSuccess?: { rejectedSpans: number; errorMessage: string };
}

/** `ExportTraceServiceResponse` in protobuf. */
export function encodeTraceResponse(response: TraceResponse): Uint8Array {
  const partial = response.partialSuccess;
  return toBinary(
    ExportTraceServiceResponseSchema,
    create(ExportTraceServiceResponseSchema, {
      ...(partial && {
        partialSuccess: { rejectedSpans: BigInt(partial.rejectedSpans), errorMessage: partial.errorMessage },
      }),
    }),
  );
}

/** Reads an `ExportTraceServiceResponse` in protobuf (for clients and tests). */
export function decodeTraceResponse(bytes: Uint8Array): TraceResponse {
  const partial = fromBinary(ExportTraceServiceResponseSchema, bytes).partialSuccess;
  return partial
    ? { partialSuccess: { rejectedSpans: Number(partial.rejectedSpans), errorMessage: partial.errorMessage } }
    : {};
}

/** `ExportTraceServiceResponse` in OTLP/JSON (int64 as a decimal string, as protobuf's JSON mapping writes it). */
export function traceResponseJson(response: TraceResponse): Record<string, unknown> {
  const partial = response.partialSuccess;
  return partial
    ? { partialSuccess: { rejectedSpans: String(partial.rejectedSpans), errorMessage: partial.errorMessage } }
    : {};
}

export {
  ExportTraceServiceRequestSchema,
  ExportTraceServiceResponseSchema,
} from "./generated/opentelemetry/proto/collector/trace/v1/trace_service_pb.ts";
