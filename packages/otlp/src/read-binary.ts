/**
 * A protobuf reader written for the few messages of an `ExportTraceServiceRequest`, without reflection.
 *
 * protobuf-es's generic `fromBinary` walks descriptors and goes through a reflection layer for every field; it
 * cost about 35 µs per span of a GenAI chat span. This reader does what `fromBinary` does, step by step and
 * with the same `BinaryReader` calls in the same order, but with one function per message and a `switch` on
 * field numbers, so it reads the same bytes into the same values and fails on the same bytes with the same
 * errors (tested against `fromBinary` on captured requests and on random ones, read-binary.test.ts):
 * - field numbers, scalar types and UTF-8 validation are taken from the generated descriptors (the generated
 *   code stays the source of truth); a field is read by its declared type whatever its wire type, as protobuf-es
 *   does;
 * - a singular message field sent twice is merged (its lists appended, its scalars overwritten), a oneof member
 *   replaces another, an unknown field is skipped by its wire type, and nesting deeper than the recursion
 *   limit fails with protobuf-es's message;
 * - fields the plain form does not hold (schema URLs, flags, entity refs, dropped counts of events and links)
 *   are read by their descriptor and dropped, as the conversion after `fromBinary` drops them.
 *
 * The result has the generated messages' shape (without `$typeName` and unknown fields), restricted to the fields
 * the conversion to the plain form (index.ts) reads.
 */
import { type DescField, type DescMessage, ScalarType } from "@bufbuild/protobuf";
import { BinaryReader } from "@bufbuild/protobuf/wire";
import { ExportTraceServiceRequestSchema } from "./generated/opentelemetry/proto/collector/trace/v1/trace_service_pb.ts";
import {
  AnyValueSchema,
  ArrayValueSchema,
  InstrumentationScopeSchema,
  KeyValueListSchema,
  KeyValueSchema,
} from "./generated/opentelemetry/proto/common/v1/common_pb.ts";
import { ResourceSchema } from "./generated/opentelemetry/proto/resource/v1/resource_pb.ts";
import {
  ResourceSpansSchema,
  ScopeSpansSchema,
  Span_EventSchema,
  Span_LinkSchema,
  SpanSchema,
  StatusSchema,
} from "./generated/opentelemetry/proto/trace/v1/trace_pb.ts";

export interface RawAnyValue {
  value:
    | { case: "stringValue"; value: string }
    | { case: "boolValue"; value: boolean }
    | { case: "intValue"; value: bigint }
    | { case: "doubleValue"; value: number }
    | { case: "bytesValue"; value: Uint8Array }
    | { case: "arrayValue"; value: { values: RawAnyValue[] } }
    | { case: "kvlistValue"; value: { values: RawKeyValue[] } }
    | { case: string | undefined; value?: unknown };
}

export interface RawKeyValue {
  key: string;
  value?: RawAnyValue;
}

export interface RawSpan {
  traceId: Uint8Array;
  spanId: Uint8Array;
  traceState: string;
  parentSpanId: Uint8Array;
  name: string;
  kind: number;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: RawKeyValue[];
  droppedAttributesCount: number;
  events: { timeUnixNano: bigint; name: string; attributes: RawKeyValue[] }[];
  droppedEventsCount: number;
  links: { traceId: Uint8Array; spanId: Uint8Array; attributes: RawKeyValue[] }[];
  droppedLinksCount: number;
  status?: { code: number; message: string };
}

export interface RawScopeSpans {
  scope?: { name: string; version: string; attributes: RawKeyValue[] };
  spans: RawSpan[];
}

export interface RawResourceSpans {
  resource?: { attributes: RawKeyValue[] };
  scopeSpans: RawScopeSpans[];
}

export interface RawTraceRequest {
  resourceSpans: RawResourceSpans[];
}

// ---------------------------------------------------------------------------------------------------------------
// Field numbers and string validation, from the generated descriptors

const number = (field: DescField) => field.number;
const strict = (field: DescField) => field.fieldKind === "scalar" && field.utf8Validation;

const REQUEST = { resourceSpans: number(ExportTraceServiceRequestSchema.field.resourceSpans) };
const RESOURCE_SPANS = {
  resource: number(ResourceSpansSchema.field.resource),
  scopeSpans: number(ResourceSpansSchema.field.scopeSpans),
};
const RESOURCE = { attributes: number(ResourceSchema.field.attributes) };
const SCOPE_SPANS = { scope: number(ScopeSpansSchema.field.scope), spans: number(ScopeSpansSchema.field.spans) };
const SCOPE = {
  name: number(InstrumentationScopeSchema.field.name),
  nameStrict: strict(InstrumentationScopeSchema.field.name),
  version: number(InstrumentationScopeSchema.field.version),
  versionStrict: strict(InstrumentationScopeSchema.field.version),
  attributes: number(InstrumentationScopeSchema.field.attributes),
};
const SPAN = {
  traceId: number(SpanSchema.field.traceId),
  spanId: number(SpanSchema.field.spanId),
  traceState: number(SpanSchema.field.traceState),
  traceStateStrict: strict(SpanSchema.field.traceState),
  parentSpanId: number(SpanSchema.field.parentSpanId),
  name: number(SpanSchema.field.name),
  nameStrict: strict(SpanSchema.field.name),
  kind: number(SpanSchema.field.kind),
  startTimeUnixNano: number(SpanSchema.field.startTimeUnixNano),
  endTimeUnixNano: number(SpanSchema.field.endTimeUnixNano),
  attributes: number(SpanSchema.field.attributes),
  droppedAttributesCount: number(SpanSchema.field.droppedAttributesCount),
  events: number(SpanSchema.field.events),
  droppedEventsCount: number(SpanSchema.field.droppedEventsCount),
  links: number(SpanSchema.field.links),
  droppedLinksCount: number(SpanSchema.field.droppedLinksCount),
  status: number(SpanSchema.field.status),
};
const EVENT = {
  timeUnixNano: number(Span_EventSchema.field.timeUnixNano),
  name: number(Span_EventSchema.field.name),
  nameStrict: strict(Span_EventSchema.field.name),
  attributes: number(Span_EventSchema.field.attributes),
};
const LINK = {
  traceId: number(Span_LinkSchema.field.traceId),
  spanId: number(Span_LinkSchema.field.spanId),
  attributes: number(Span_LinkSchema.field.attributes),
};
const STATUS = {
  message: number(StatusSchema.field.message),
  messageStrict: strict(StatusSchema.field.message),
  code: number(StatusSchema.field.code),
};
const KEY_VALUE = {
  key: number(KeyValueSchema.field.key),
  keyStrict: strict(KeyValueSchema.field.key),
  value: number(KeyValueSchema.field.value),
};
const ANY_VALUE = {
  stringValue: number(AnyValueSchema.field.stringValue),
  stringStrict: strict(AnyValueSchema.field.stringValue),
  boolValue: number(AnyValueSchema.field.boolValue),
  intValue: number(AnyValueSchema.field.intValue),
  doubleValue: number(AnyValueSchema.field.doubleValue),
  arrayValue: number(AnyValueSchema.field.arrayValue),
  kvlistValue: number(AnyValueSchema.field.kvlistValue),
  bytesValue: number(AnyValueSchema.field.bytesValue),
};
const ARRAY_VALUE = { values: number(ArrayValueSchema.field.values) };
const KEY_VALUE_LIST = { values: number(KeyValueListSchema.field.values) };

// The generic part below reads any field of these protos by its descriptor; it knows no map fields and no
// delimited (group) encoding, which proto3 OTLP does not use: should a new version of the protos bring them,
// this fails at load rather than reading differently from protobuf-es.
const FIELDS = new Map<DescMessage, Map<number, DescField>>();
function indexFields(desc: DescMessage): void {
  if (FIELDS.has(desc)) return;
  FIELDS.set(desc, new Map(desc.fields.map((field) => [field.number, field])));
  for (const field of desc.fields) {
    const delimited = "delimitedEncoding" in field && field.delimitedEncoding === true;
    if (field.fieldKind === "map" || delimited) {
      throw new Error(`read-binary.ts does not read ${field} (a map or delimited field)`);
    }
    if (field.fieldKind === "message" || (field.fieldKind === "list" && field.listKind === "message")) {
      indexFields(field.message);
    }
  }
}
indexFields(ExportTraceServiceRequestSchema);

// ---------------------------------------------------------------------------------------------------------------
// The reading, as protobuf-es's from-binary.ts does it

interface Context {
  depth: number;
  readonly recursionLimit: number;
}

/** readMessage's check, with its message. */
function enter(ctx: Context, desc: DescMessage): void {
  if (++ctx.depth > ctx.recursionLimit) {
    throw new Error(`cannot decode ${desc} from binary: maximum recursion depth of ${ctx.recursionLimit} reached`);
  }
}

function readScalar(reader: BinaryReader, type: ScalarType, validateUtf8 = false): unknown {
  switch (type) {
    case ScalarType.STRING:
      return reader.string(validateUtf8);
    case ScalarType.BOOL:
      return reader.bool();
    case ScalarType.DOUBLE:
      return reader.double();
    case ScalarType.FLOAT:
      return reader.float();
    case ScalarType.INT32:
      return reader.int32();
    case ScalarType.INT64:
      return reader.int64();
    case ScalarType.UINT64:
      return reader.uint64();
    case ScalarType.FIXED64:
      return reader.fixed64();
    case ScalarType.BYTES:
      return reader.bytes();
    case ScalarType.FIXED32:
      return reader.fixed32();
    case ScalarType.SFIXED32:
      return reader.sfixed32();
    case ScalarType.SFIXED64:
      return reader.sfixed64();
    case ScalarType.SINT64:
      return reader.sint64();
    case ScalarType.UINT32:
      return reader.uint32();
    case ScalarType.SINT32:
      return reader.sint32();
  }
}

/**
 * A field this reader does not keep, read as protobuf-es reads it (known: by its declared type; unknown: skipped
 * by its wire type); answers the field, or undefined when it is unknown.
 */
function readOther(
  reader: BinaryReader,
  ctx: Context,
  desc: DescMessage,
  fieldNo: number,
  wireType: number,
): DescField | undefined {
  const field = FIELDS.get(desc)?.get(fieldNo);
  if (!field) {
    reader.skip(wireType, fieldNo, ctx.recursionLimit - ctx.depth);
    return undefined;
  }
  switch (field.fieldKind) {
    case "scalar":
      readScalar(reader, field.scalar, field.utf8Validation);
      break;
    case "enum":
      reader.int32();
      break;
    case "message":
      skipMessage(reader, ctx, field.message);
      break;
    case "list": {
      if (field.listKind === "message") {
        skipMessage(reader, ctx, field.message);
        break;
      }
      const scalarType = field.scalar ?? ScalarType.INT32;
      const packed = wireType === 2 && scalarType !== ScalarType.STRING && scalarType !== ScalarType.BYTES;
      if (!packed) {
        readScalar(reader, scalarType, field.utf8Validation);
        break;
      }
      const end = reader.uint32() + reader.pos;
      while (reader.pos < end) readScalar(reader, scalarType, field.utf8Validation);
      break;
    }
    case "map":
      throw new Error(`read-binary.ts does not read ${field}`);
  }
  return field;
}

function skipMessage(reader: BinaryReader, ctx: Context, desc: DescMessage): void {
  const length = reader.uint32();
  enter(ctx, desc);
  const end = reader.pos + length;
  while (reader.pos < end) {
    const [fieldNo, wireType] = reader.tag();
    readOther(reader, ctx, desc, fieldNo, wireType);
  }
  ctx.depth--;
}

const EMPTY = new Uint8Array(0);

function readAnyValue(reader: BinaryReader, ctx: Context, merge: RawAnyValue | undefined): RawAnyValue {
  const length = reader.uint32();
  enter(ctx, AnyValueSchema);
  const end = reader.pos + length;
  const message: RawAnyValue = merge ?? { value: { case: undefined } };
  while (reader.pos < end) {
    const [fieldNo, wireType] = reader.tag();
    const held = message.value;
    switch (fieldNo) {
      case ANY_VALUE.stringValue:
        message.value = { case: "stringValue", value: reader.string(ANY_VALUE.stringStrict) };
        break;
      case ANY_VALUE.boolValue:
        message.value = { case: "boolValue", value: reader.bool() };
        break;
      case ANY_VALUE.intValue:
        message.value = { case: "intValue", value: reader.int64() as bigint };
        break;
      case ANY_VALUE.doubleValue:
        message.value = { case: "doubleValue", value: reader.double() };
        break;
      case ANY_VALUE.bytesValue:
        message.value = { case: "bytesValue", value: reader.bytes() };
        break;
      case ANY_VALUE.arrayValue:
        message.value = {
          case: "arrayValue",
          value: readArrayValue(
            reader,
            ctx,
            held.case === "arrayValue" ? (held.value as { values: RawAnyValue[] }) : undefined,
          ),
        };
        break;
      case ANY_VALUE.kvlistValue:
        message.value = {
          case: "kvlistValue",
          value: readKeyValueList(
            reader,
            ctx,
            held.case === "kvlistValue" ? (held.value as { values: RawKeyValue[] }) : undefined,
          ),
        };
        break;
      default: {
        // Another member of the oneof (a dictionary-encoded string, profiles only) replaces the value.
        const field = readOther(reader, ctx, AnyValueSchema, fieldNo, wireType);
        if (field?.oneof) message.value = { case: field.localName, value: undefined };
      }
    }
  }
  ctx.depth--;
  return message;
}

function readArrayValue(
  reader: BinaryReader,
  ctx: Context,
  merge: { values: RawAnyValue[] } | undefined,
): { values: RawAnyValue[] } {
  const length = reader.uint32();
  enter(ctx, ArrayValueSchema);
  const end = reader.pos + length;
  const message = merge ?? { values: [] };
  while (reader.pos < end) {
    const [fieldNo, wireType] = reader.tag();
    if (fieldNo === ARRAY_VALUE.values) message.values.push(readAnyValue(reader, ctx, undefined));
    else readOther(reader, ctx, ArrayValueSchema, fieldNo, wireType);
  }
  ctx.depth--;
  return message;
}

function readKeyValueList(
  reader: BinaryReader,
  ctx: Context,
  merge: { values: RawKeyValue[] } | undefined,
): { values: RawKeyValue[] } {
  const length = reader.uint32();
  enter(ctx, KeyValueListSchema);
  const end = reader.pos + length;
  const message = merge ?? { values: [] };
  while (reader.pos < end) {
    const [fieldNo, wireType] = reader.tag();
    if (fieldNo === KEY_VALUE_LIST.values) message.values.push(readKeyValue(reader, ctx));
    else readOther(reader, ctx, KeyValueListSchema, fieldNo, wireType);
  }
  ctx.depth--;
  return message;
}

function readKeyValue(reader: BinaryReader, ctx: Context): RawKeyValue {
  const length = reader.uint32();
  enter(ctx, KeyValueSchema);
  const end = reader.pos + length;
  const message: RawKeyValue = { key: "" };
  while (reader.pos < end) {
    const [fieldNo, wireType] = reader.tag();
    if (fieldNo === KEY_VALUE.key) message.key = reader.string(KEY_VALUE.keyStrict);
    else if (fieldNo === KEY_VALUE.value) message.value = readAnyValue(reader, ctx, message.value);
    else readOther(reader, ctx, KeyValueSchema, fieldNo, wireType);
  }
  ctx.depth--;
  return message;
}

function readStatus(
  reader: BinaryReader,
  ctx: Context,
  merge: { code: number; message: string } | undefined,
): { code: number; message: string } {
  const length = reader.uint32();
  enter(ctx, StatusSchema);
  const end = reader.pos + length;
  const message = merge ?? { code: 0, message: "" };
  while (reader.pos < end) {
    const [fieldNo, wireType] = reader.tag();
    if (fieldNo === STATUS.message) message.message = reader.string(STATUS.messageStrict);
    else if (fieldNo === STATUS.code) message.code = reader.int32();
    else readOther(reader, ctx, StatusSchema, fieldNo, wireType);
  }
  ctx.depth--;
  return message;
}

function readEvent(reader: BinaryReader, ctx: Context): RawSpan["events"][number] {
  const length = reader.uint32();
  enter(ctx, Span_EventSchema);
  const end = reader.pos + length;
  const message: RawSpan["events"][number] = { timeUnixNano: 0n, name: "", attributes: [] };
  while (reader.pos < end) {
    const [fieldNo, wireType] = reader.tag();
    if (fieldNo === EVENT.timeUnixNano) message.timeUnixNano = reader.fixed64() as bigint;
    else if (fieldNo === EVENT.name) message.name = reader.string(EVENT.nameStrict);
    else if (fieldNo === EVENT.attributes) message.attributes.push(readKeyValue(reader, ctx));
    else readOther(reader, ctx, Span_EventSchema, fieldNo, wireType);
  }
  ctx.depth--;
  return message;
}

function readLink(reader: BinaryReader, ctx: Context): RawSpan["links"][number] {
  const length = reader.uint32();
  enter(ctx, Span_LinkSchema);
  const end = reader.pos + length;
  const message: RawSpan["links"][number] = { traceId: EMPTY, spanId: EMPTY, attributes: [] };
  while (reader.pos < end) {
    const [fieldNo, wireType] = reader.tag();
    if (fieldNo === LINK.traceId) message.traceId = reader.bytes();
    else if (fieldNo === LINK.spanId) message.spanId = reader.bytes();
    else if (fieldNo === LINK.attributes) message.attributes.push(readKeyValue(reader, ctx));
    else readOther(reader, ctx, Span_LinkSchema, fieldNo, wireType);
  }
  ctx.depth--;
  return message;
}

function readSpan(reader: BinaryReader, ctx: Context): RawSpan {
  const length = reader.uint32();
  enter(ctx, SpanSchema);
  const end = reader.pos + length;
  const span: RawSpan = {
    traceId: EMPTY,
    spanId: EMPTY,
    traceState: "",
    parentSpanId: EMPTY,
    name: "",
    kind: 0,
    startTimeUnixNano: 0n,
    endTimeUnixNano: 0n,
    attributes: [],
    droppedAttributesCount: 0,
    events: [],
    droppedEventsCount: 0,
    links: [],
    droppedLinksCount: 0,
  };
  while (reader.pos < end) {
    const [fieldNo, wireType] = reader.tag();
    switch (fieldNo) {
      case SPAN.traceId:
        span.traceId = reader.bytes();
        break;
      case SPAN.spanId:
        span.spanId = reader.bytes();
        break;
      case SPAN.traceState:
        span.traceState = reader.string(SPAN.traceStateStrict);
        break;
      case SPAN.parentSpanId:
        span.parentSpanId = reader.bytes();
        break;
      case SPAN.name:
        span.name = reader.string(SPAN.nameStrict);
        break;
      case SPAN.kind:
        span.kind = reader.int32();
        break;
      case SPAN.startTimeUnixNano:
        span.startTimeUnixNano = reader.fixed64() as bigint;
        break;
      case SPAN.endTimeUnixNano:
        span.endTimeUnixNano = reader.fixed64() as bigint;
        break;
      case SPAN.attributes:
        span.attributes.push(readKeyValue(reader, ctx));
        break;
      case SPAN.droppedAttributesCount:
        span.droppedAttributesCount = reader.uint32();
        break;
      case SPAN.events:
        span.events.push(readEvent(reader, ctx));
        break;
      case SPAN.droppedEventsCount:
        span.droppedEventsCount = reader.uint32();
        break;
      case SPAN.links:
        span.links.push(readLink(reader, ctx));
        break;
      case SPAN.droppedLinksCount:
        span.droppedLinksCount = reader.uint32();
        break;
      case SPAN.status:
        span.status = readStatus(reader, ctx, span.status);
        break;
      default:
        readOther(reader, ctx, SpanSchema, fieldNo, wireType);
    }
  }
  ctx.depth--;
  return span;
}

function readScope(
  reader: BinaryReader,
  ctx: Context,
  merge: RawScopeSpans["scope"],
): NonNullable<RawScopeSpans["scope"]> {
  const length = reader.uint32();
  enter(ctx, InstrumentationScopeSchema);
  const end = reader.pos + length;
  const message = merge ?? { name: "", version: "", attributes: [] };
  while (reader.pos < end) {
    const [fieldNo, wireType] = reader.tag();
    if (fieldNo === SCOPE.name) message.name = reader.string(SCOPE.nameStrict);
    else if (fieldNo === SCOPE.version) message.version = reader.string(SCOPE.versionStrict);
    else if (fieldNo === SCOPE.attributes) message.attributes.push(readKeyValue(reader, ctx));
    else readOther(reader, ctx, InstrumentationScopeSchema, fieldNo, wireType);
  }
  ctx.depth--;
  return message;
}

function readScopeSpans(reader: BinaryReader, ctx: Context): RawScopeSpans {
  const length = reader.uint32();
  enter(ctx, ScopeSpansSchema);
  const end = reader.pos + length;
  const message: RawScopeSpans = { spans: [] };
  while (reader.pos < end) {
    const [fieldNo, wireType] = reader.tag();
    if (fieldNo === SCOPE_SPANS.spans) message.spans.push(readSpan(reader, ctx));
    else if (fieldNo === SCOPE_SPANS.scope) message.scope = readScope(reader, ctx, message.scope);
    else readOther(reader, ctx, ScopeSpansSchema, fieldNo, wireType);
  }
  ctx.depth--;
  return message;
}

function readResource(
  reader: BinaryReader,
  ctx: Context,
  merge: RawResourceSpans["resource"],
): NonNullable<RawResourceSpans["resource"]> {
  const length = reader.uint32();
  enter(ctx, ResourceSchema);
  const end = reader.pos + length;
  const message = merge ?? { attributes: [] };
  while (reader.pos < end) {
    const [fieldNo, wireType] = reader.tag();
    if (fieldNo === RESOURCE.attributes) message.attributes.push(readKeyValue(reader, ctx));
    else readOther(reader, ctx, ResourceSchema, fieldNo, wireType);
  }
  ctx.depth--;
  return message;
}

function readResourceSpans(reader: BinaryReader, ctx: Context): RawResourceSpans {
  const length = reader.uint32();
  enter(ctx, ResourceSpansSchema);
  const end = reader.pos + length;
  const message: RawResourceSpans = { scopeSpans: [] };
  while (reader.pos < end) {
    const [fieldNo, wireType] = reader.tag();
    if (fieldNo === RESOURCE_SPANS.scopeSpans) message.scopeSpans.push(readScopeSpans(reader, ctx));
    else if (fieldNo === RESOURCE_SPANS.resource) message.resource = readResource(reader, ctx, message.resource);
    else readOther(reader, ctx, ResourceSpansSchema, fieldNo, wireType);
  }
  ctx.depth--;
  return message;
}

/**
 * Reads an `ExportTraceServiceRequest` as `fromBinary(ExportTraceServiceRequestSchema, bytes, { recursionLimit })`
 * does; throws what it throws.
 */
export function readTraceRequestBinary(bytes: Uint8Array, recursionLimit: number): RawTraceRequest {
  const reader = new BinaryReader(bytes);
  const ctx: Context = { depth: 0, recursionLimit };
  enter(ctx, ExportTraceServiceRequestSchema);
  const end = bytes.byteLength;
  const request: RawTraceRequest = { resourceSpans: [] };
  while (reader.pos < end) {
    const [fieldNo, wireType] = reader.tag();
    if (fieldNo === REQUEST.resourceSpans) request.resourceSpans.push(readResourceSpans(reader, ctx));
    else readOther(reader, ctx, ExportTraceServiceRequestSchema, fieldNo, wireType);
  }
  return request;
}
