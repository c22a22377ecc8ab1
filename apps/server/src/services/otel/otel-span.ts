/**
 * One OTel span as the fields of a Pharos span: content by its convention (conventions.ts), the attributes
 * not used for the content kept verbatim within the bounds of LogAttributes, events as JSON text within the
 * bounds of LogEvents, and what does not fit those bounds kept in the content's input under `otel`.
 */
import type { schemas } from "@pharos/contract";
import type { OtlpMap, OtlpSpan, OtlpValue } from "@pharos/otlp";
import type { ErrorDetail } from "../../errors.ts";
import type { SpanInput } from "../logs/log-rows.ts";
import { type CheckedContent, checkBuiltContent, checkContent } from "../logs/span-content.ts";
import { priceOf } from "../models/price-table.ts";
import { type JsonText, jsonText } from "./content-json.ts";
import { AttributeReader, classify, modelFields, plain, stepFields, withoutNul } from "./conventions.ts";

/** LogAttributes' bounds: 100 keys of 1–256 characters, text values of at most 4,096 characters. */
const MAX_ATTRIBUTES = 100;
const MAX_KEY_LENGTH = 256;
const MAX_TEXT_VALUE = 4096;
/** LogEvents' bounds: 100 events of at most 16,384 characters. */
const MAX_EVENTS = 100;
const MAX_EVENT_LENGTH = 16_384;
/**
 * How much of a truncated content's input or output is kept as its preview: small enough that, escaped twice
 * (JSON text inside JSON), both previews stay far under 1 MB.
 */
const PREVIEW_CHARACTERS = 8 * 1024;
/** The most JSON text of a Model span's `variables` a truncated content keeps (the rest of it is previews). */
const MAX_KEPT_VARIABLES = 512 * 1024;
/** The Timestamp range of the spec (Unix ms). */
export const MIN_TIME = 1_672_511_400_000;
export const MAX_TIME = 33_229_420_200_000;

/** The providers of the model price table (services/models/price-table.ts). */
const PRICED_PROVIDERS = new Set(["openai", "anthropic"]);

const SPAN_KINDS = ["unspecified", "internal", "server", "client", "producer", "consumer"];

const clean = withoutNul;

type AttributeValue = string | number | boolean;

/** Adds attributes within LogAttributes' bounds; what does not fit goes to `overflow`, verbatim. */
class AttributeSink {
  readonly attributes: Record<string, AttributeValue> = {};
  readonly overflow: Record<string, unknown> = {};
  private count = 0;

  add(key: string, value: OtlpValue): void {
    const stored = storedValue(value);
    const fits =
      stored !== undefined &&
      key.length >= 1 &&
      key.length <= MAX_KEY_LENGTH &&
      this.count < MAX_ATTRIBUTES &&
      !Object.hasOwn(this.attributes, key);
    if (fits) {
      const name = clean(key);
      // defineProperty, so that a key named __proto__ is a key like any other (assignment is the same, and faster,
      // for every other key).
      if (name === "__proto__") {
        Object.defineProperty(this.attributes, name, {
          value: stored,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      } else {
        this.attributes[name] = stored;
      }
      this.count += 1;
    } else {
      Object.defineProperty(this.overflow, key, {
        value: plain(value),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
}

/** A value as LogAttributes holds it (text, finite number, boolean), or undefined when it cannot be one. */
function storedValue(value: OtlpValue): AttributeValue | undefined {
  if (typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value);
  if (value === null) return undefined;
  const text = typeof value === "string" ? clean(value) : JSON.stringify(plain(value));
  return text.length <= MAX_TEXT_VALUE ? text : undefined;
}

const msOf = (nanos: bigint) => Number(nanos / 1_000_000n);

export interface MappedSpan {
  /** The span fields a write stores (no content: that is `content`). */
  input: SpanInput;
  content: CheckedContent;
  /** The end user the span names (`user.id`, else `enduser.id`): its trace's `userId`. */
  userId?: string;
  /**
   * The prompt and deployment the span names (`pharos.prompt.id`, `pharos.deployment.id`): its `promptId` and
   * `deploymentId` once the write has found them in the project (export-otel-traces.ts), else only attributes.
   */
  promptReference?: string;
  deploymentReference?: string;
}

/** SpanContentModel's bounds on `variables`: 100 names of 1 to 128 characters. */
const MAX_VARIABLES = 100;
const MAX_VARIABLE_NAME = 128;
const VARIABLES_KEY = "pharos.variables";
const VARIABLE_PREFIX = "pharos.variables.";
const MODALITIES = new Set(["text", "image", "pdf"]);

type SpanVariable = { modality: string; value: string };

/** One variable of `pharos.variables` / `pharos.variables.<name>`: text as a text variable, `{modality, value}` kept. */
function variableOf(value: unknown): SpanVariable {
  if (typeof value === "string") return { modality: "text", value: clean(value) };
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const { modality, value: text, ...rest } = value as Record<string, unknown>;
    if (typeof modality === "string" && MODALITIES.has(modality) && typeof text === "string") {
      if (Object.keys(rest).length === 0) return { modality, value: clean(text) };
    }
  }
  return { modality: "text", value: clean(JSON.stringify(value ?? null)) };
}

/**
 * A Model span's `variables`, from `pharos.variables` (JSON text of an object) and `pharos.variables.<name>`
 * (which win over the same name), marking the attributes read as used; undefined when the span names none.
 */
function variablesOf(reader: AttributeReader, attributes: OtlpMap): Record<string, SpanVariable> | undefined {
  const variables = new Map<string, SpanVariable>();
  const whole = reader.peek(VARIABLES_KEY);
  if (typeof whole === "string") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(whole);
    } catch {
      parsed = undefined;
    }
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) {
      reader.take(VARIABLES_KEY);
      for (const [name, value] of Object.entries(parsed)) variables.set(name, variableOf(value));
    }
  }
  for (const [key, value] of attributes) {
    if (!key.startsWith(VARIABLE_PREFIX)) continue;
    reader.take(key);
    variables.set(key.slice(VARIABLE_PREFIX.length), variableOf(typeof value === "string" ? value : plain(value)));
  }
  const kept: Record<string, SpanVariable> = {};
  let count = 0;
  for (const [rawName, variable] of variables) {
    const name = clean(rawName);
    if (name.length < 1 || name.length > MAX_VARIABLE_NAME || count >= MAX_VARIABLES) continue;
    Object.defineProperty(kept, name, { value: variable, enumerable: true, writable: true, configurable: true });
    count += 1;
  }
  return count === 0 && variables.size === 0 ? undefined : kept;
}

/** `pharos.run_evaluation`: boolean true, or the text `true` (attributes set from the environment are text). */
function runEvaluationOf(reader: AttributeReader): boolean {
  const value = reader.peek("pharos.run_evaluation");
  return value === true || (typeof value === "string" && value.trim().toLowerCase() === "true");
}

/**
 * A session or user id the span carries: text of 1 to 128 characters (the bounds of the trace fields), else
 * none. The attribute itself stays among the span's attributes, verbatim.
 */
function idAttribute(reader: AttributeReader, ...keys: string[]): string | undefined {
  for (const key of keys) {
    const value = reader.peek(key);
    if (typeof value === "string" && value.length >= 1 && value.length <= 128) return value;
  }
  return undefined;
}

/** Why a span cannot be stored, or undefined when it can. */
export function rejectionOf(span: OtlpSpan): string | undefined {
  if (span.traceId.length !== 32 || /^0+$/.test(span.traceId)) return "traceId must be 16 bytes, not all zero";
  if (span.spanId.length !== 16 || /^0+$/.test(span.spanId)) return "spanId must be 8 bytes, not all zero";
  if (span.parentSpanId !== "" && span.parentSpanId.length !== 16) return "parentSpanId must be empty or 8 bytes";
  const start = msOf(span.startTimeUnixNano);
  if (start < MIN_TIME || start > MAX_TIME) {
    return `startTimeUnixNano must be within Pharos' time range (Unix ms ${MIN_TIME} to ${MAX_TIME})`;
  }
  return undefined;
}

/** The Pharos span of an OTel span that `rejectionOf` accepted. */
export function mapSpan(
  span: OtlpSpan,
  resource: OtlpMap,
  scope: { name: string; version: string; attributes: OtlpMap },
): MappedSpan {
  const reader = new AttributeReader(span.attributes);
  const { type } = classify(reader);
  const sessionId = idAttribute(reader, "session.id");
  const userId = idAttribute(reader, "user.id", "enduser.id");
  const promptReference = idAttribute(reader, "pharos.prompt.id");
  const deploymentReference = idAttribute(reader, "pharos.deployment.id");
  const runEvaluation = runEvaluationOf(reader);
  let content: Record<string, unknown>;
  // What the content's output parses to, as far as the check reads it (a Model's tokenUsage, through JSON as the
  // parse would give it): the output just built is not parsed again.
  let parsedOutput: unknown;
  // A Model content's input and output with their form in the stored JSON (content-json.ts), while unchanged.
  let modelInput: JsonText | undefined;
  let modelOutput: JsonText | undefined;
  if (type === "Model") {
    const fields = modelFields(reader, span.events);
    const usage = fields.output.tokenUsage;
    const priced = fields.cost === undefined && usage && PRICED_PROVIDERS.has(fields.provider);
    const price = priced ? priceOf(fields.provider as "openai" | "anthropic", fields.model) : null;
    const cost =
      fields.cost ??
      (price && usage
        ? (usage.promptTokens * price.inputPerMillion + usage.completionTokens * price.outputPerMillion) / 1_000_000
        : undefined);
    const variables = variablesOf(reader, span.attributes);
    modelInput = jsonText(fields.input);
    modelOutput = jsonText(fields.output);
    content = {
      type,
      provider: fields.provider,
      model: fields.model,
      input: modelInput.text,
      output: modelOutput.text,
      ...(cost !== undefined && { cost }),
      ...(variables !== undefined && { variables }),
    };
    // Counts as JSON text gives them back: finite, non-negative numbers, -0 read as 0.
    const parsed = (count: number) => (count === 0 ? 0 : count);
    parsedOutput =
      usage === undefined
        ? {}
        : {
            tokenUsage: {
              promptTokens: parsed(usage.promptTokens),
              completionTokens: parsed(usage.completionTokens),
              totalTokens: parsed(usage.totalTokens),
            },
          };
  } else {
    content = { type, ...stepFields(reader, type) };
  }

  const sink = new AttributeSink();
  for (const [key, value] of span.attributes) if (!reader.used.has(key)) sink.add(key, value);
  for (const [key, value] of resource) sink.add(`otel.resource.${key}`, value);
  if (scope.name) sink.add("otel.scope.name", scope.name);
  if (scope.version) sink.add("otel.scope.version", scope.version);
  for (const [key, value] of scope.attributes) sink.add(`otel.scope.attributes.${key}`, value);
  sink.add("otel.span.kind", SPAN_KINDS[span.kind] ?? String(span.kind));
  if (span.status.message) sink.add("otel.status.message", span.status.message);
  if (span.traceState) sink.add("otel.trace_state", span.traceState);
  if (span.links.length > 0) {
    sink.add("otel.links", JSON.stringify(span.links.map((link) => ({ ...link, attributes: plain(link.attributes) }))));
  }
  for (const [key, count] of [
    ["otel.dropped_attributes_count", span.droppedAttributesCount],
    ["otel.dropped_events_count", span.droppedEventsCount],
    ["otel.dropped_links_count", span.droppedLinksCount],
  ] as const) {
    if (count > 0) sink.add(key, count);
  }

  const events: string[] = [];
  const overflowEvents: unknown[] = [];
  for (const event of span.events) {
    const text = JSON.stringify({
      name: event.name,
      timeUnixNano: event.timeUnixNano.toString(),
      attributes: plain(event.attributes),
    });
    if (events.length < MAX_EVENTS && text.length <= MAX_EVENT_LENGTH) events.push(text);
    else overflowEvents.push(JSON.parse(text));
  }

  // What does not fit attributes and events is kept in the content's input, under `otel`.
  if (Object.keys(sink.overflow).length > 0 || overflowEvents.length > 0) {
    const input = JSON.parse(content.input as string) as unknown;
    const otel = {
      ...(Object.keys(sink.overflow).length > 0 && { attributes: sink.overflow }),
      ...(overflowEvents.length > 0 && { events: overflowEvents }),
    };
    const merged =
      input !== null && typeof input === "object" && !Array.isArray(input)
        ? { ...input, otel }
        : { value: input, otel };
    content.input = JSON.stringify(merged);
    modelInput = undefined;
  }

  // Built here, its input and output JSON.stringify's: valid JSON text, so checkContent's parse is skipped.
  let checked = checkBuiltContent(
    content as schemas.LogSpanContent,
    parsedOutput,
    modelInput && modelOutput && modelContentJson(content, modelInput, modelOutput),
  );
  if (checked.tooLarge) {
    content = truncated(content);
    checked = check(content);
    sink.attributes["pharos.content.truncated"] = true;
  }

  const startedAt = msOf(span.startTimeUnixNano);
  const endedAt = Math.min(Math.max(msOf(span.endTimeUnixNano), startedAt), MAX_TIME);
  const name = clean(span.name) || "(unnamed span)";
  if (name.length > 256) sink.attributes["otel.span.name"] = name.slice(0, MAX_TEXT_VALUE);
  const input: SpanInput = {
    name: name.slice(0, 256),
    status: span.status.code === 2 ? "failure" : "success",
    startedAt,
    endedAt,
    referenceId: span.spanId,
    ...(span.parentSpanId !== "" && !/^0+$/.test(span.parentSpanId) && { parentReferenceId: span.parentSpanId }),
    ...(sessionId !== undefined && { sessionId }),
    ...(runEvaluation && { runEvaluation }),
    attributes: sink.attributes,
    events,
  };
  return {
    input,
    content: checked,
    ...(userId !== undefined && { userId }),
    ...(promptReference !== undefined && { promptReference }),
    ...(deploymentReference !== undefined && { deploymentReference }),
  };
}

/**
 * JSON.stringify(content) of a Model content as mapSpan builds it (its keys in that order), with its input and
 * output written from their quoted forms rather than escaped again.
 */
function modelContentJson(content: Record<string, unknown>, input: JsonText, output: JsonText): string {
  let json = `{"type":"Model","provider":${JSON.stringify(content.provider)},"model":${JSON.stringify(content.model)}`;
  json += `,"input":${input.quoted},"output":${output.quoted}`;
  if (content.cost !== undefined) json += `,"cost":${JSON.stringify(content.cost)}`;
  if (content.variables !== undefined) json += `,"variables":${JSON.stringify(content.variables)}`;
  return `${json}}`;
}

function check(content: Record<string, unknown>): CheckedContent {
  const issues: ErrorDetail[] = [];
  const checked = checkContent(content as schemas.LogSpanContentInput, "content", issues);
  // The mapping builds valid content; should it ever not, the span is still stored, as Other.
  return checked ?? (checkContent({ type: "Other", input: "{}", output: "{}" }, "content", []) as CheckedContent);
}

/** The content with its input and output replaced by a marked preview; a Model span keeps its tokenUsage. */
function truncated(content: Record<string, unknown>): Record<string, unknown> {
  const cut = (text: unknown, extra: Record<string, unknown> = {}) => {
    const value = String(text ?? "");
    return JSON.stringify({
      ...extra,
      truncated: true,
      bytes: Buffer.byteLength(value, "utf8"),
      preview: value.slice(0, PREVIEW_CHARACTERS),
    });
  };
  if (content.type === "Model") {
    const output = JSON.parse(content.output as string) as { tokenUsage?: unknown };
    // Variables that alone would keep the content over 1 MB are dropped (their attributes are read already).
    const { variables, ...rest } = content;
    const keep = variables !== undefined && JSON.stringify(variables).length <= MAX_KEPT_VARIABLES;
    return {
      ...rest,
      ...(keep && { variables }),
      input: cut(content.input, { messages: [] }),
      output: cut(content.output, {
        messages: [],
        ...(output.tokenUsage !== undefined && { tokenUsage: output.tokenUsage }),
      }),
    };
  }
  return { ...content, input: cut(content.input), output: cut(content.output) };
}
