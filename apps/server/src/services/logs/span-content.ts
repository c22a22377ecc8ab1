/**
 * Span content as clients send it: the content object, or JSON text of one (older clients). Checked in full
 * (a JSON-string content is parsed and validated like an object; `input`/`output` must be JSON text),
 * measured for the 1 MB limit, and reduced to the columns search reads (model, provider, cost, tokens).
 */
import { schemas } from "@pharos/contract";
import type { ErrorDetail } from "../../errors.ts";

/** 1 MB of UTF-8 JSON: the most a span's content may hold (more is 413, after every 400 of the request). */
export const MAX_CONTENT_BYTES = 1_048_576;

type Content = schemas.LogSpanContent;

export interface CheckedContent {
  /** Compact JSON text of the validated content object: the form Pharos stores, whichever form was sent. */
  json: string;
  /** The content's `type`: a built-in type or a custom name. */
  type: string;
  /** Over MAX_CONTENT_BYTES in the form it was sent (the string as sent, or the object as compact JSON) or stored. */
  tooLarge: boolean;
  model: string | null;
  provider: string | null;
  /** A Model span's `cost`. */
  cost: number | null;
  /** A Model span's platform `output.tokenUsage`. */
  promptTokens: number | null;
  completionTokens: number | null;
  totalTokens: number | null;
}

// The tables below are keyed by the client's `type`, so they are Maps: in a plain object a custom type named
// `constructor` or `toString` would find a property every object inherits.

/** Fields holding JSON text, by content type; every other type (Function … Other, custom) has input and output. */
const JSON_TEXT_FIELDS = new Map<string, readonly string[]>([["ModelStream", ["input", "aggregateOutput"]]]);
export const jsonTextFieldsOf = (type: string) => JSON_TEXT_FIELDS.get(type) ?? ["input", "output"];

/** The schema of each built-in type; any other `type` is a custom kind. */
const BUILT_IN_SCHEMAS = new Map<
  string,
  { safeParse(value: unknown): ReturnType<typeof schemas.LogSpanContentSchema.safeParse> }
>([
  ["Model", schemas.SpanContentModelSchema],
  ["ModelStream", schemas.SpanContentModelStreamSchema],
  ["Function", schemas.SpanContentFunctionSchema],
  ["Tool", schemas.SpanContentToolSchema],
  ["Guardrail", schemas.SpanContentGuardrailSchema],
  ["Retrieval", schemas.SpanContentRetrievalSchema],
  ["Embeddings", schemas.SpanContentEmbeddingsSchema],
  ["Other", schemas.SpanContentOtherSchema],
]);

/**
 * Validates a parsed content object against the schema its `type` selects, so that a problem is reported
 * against that type (a union would report every member's problems).
 */
function validateContent(value: unknown) {
  const type = value !== null && typeof value === "object" ? (value as { type?: unknown }).type : undefined;
  const schema = (typeof type === "string" && BUILT_IN_SCHEMAS.get(type)) || schemas.LogSpanContentSchema;
  return schema.safeParse(value);
}

const parseJson = (text: string): { ok: true; value: unknown } | { ok: false } => {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
};

/** A token count as Pharos stores it: a non-negative whole number, else not counted. */
const tokenCount = (value: unknown) =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : null;

/**
 * Checks one span's content; problems are added to `issues` (fields under `field`) and the result is
 * undefined when there are any.
 */
export function checkContent(
  input: schemas.LogSpanContentInput,
  field: string,
  issues: ErrorDetail[],
): CheckedContent | undefined {
  let content: Content;
  let sentBytes: number | undefined;
  if (typeof input === "string") {
    const parsed = parseJson(input);
    if (!parsed.ok) {
      issues.push({ field, issue: "must be a content object or JSON text of one; this string is not valid JSON" });
      return undefined;
    }
    const result = validateContent(parsed.value);
    if (!result.success) {
      for (const issue of result.error.issues.slice(0, 20)) {
        issues.push({ field: [field, ...issue.path].join("."), issue: issue.message });
      }
      return undefined;
    }
    content = result.data;
    sentBytes = Buffer.byteLength(input, "utf8");
  } else {
    content = input;
  }

  const record = content as Record<string, unknown>;
  const parsedFields = new Map<string, unknown>();
  let valid = true;
  for (const name of jsonTextFieldsOf(content.type)) {
    const parsed = parseJson(record[name] as string);
    if (parsed.ok) {
      parsedFields.set(name, parsed.value);
    } else {
      valid = false;
      issues.push({ field: `${field}.${name}`, issue: "must be JSON text (it does not parse as JSON)" });
    }
  }
  if (!valid) return undefined;
  return summarize(content, parsedFields.get("output"), sentBytes);
}

/**
 * `checkContent` for a content object the server built itself (the OTLP mapping), whose JSON-text fields are
 * JSON.stringify's output and so known to parse: the same result without parsing them again. `output` is what
 * its `output` field parses to, as far as the summary reads it (a Model's `tokenUsage`); `json`, when given, is
 * `JSON.stringify(content)` written by the caller.
 */
export function checkBuiltContent(content: Content, output: unknown, json?: string): CheckedContent {
  return summarize(content, output, undefined, json);
}

/**
 * Whether `text` takes more than MAX_CONTENT_BYTES in UTF-8. A UTF-16 code unit takes at most 3 bytes, so most
 * texts are judged by their length alone, without being encoded.
 */
const overContentLimit = (text: string) =>
  text.length * 3 > MAX_CONTENT_BYTES && Buffer.byteLength(text, "utf8") > MAX_CONTENT_BYTES;

/** The stored form and the search columns of a content whose JSON-text fields parsed (`output`: its output's value). */
function summarize(
  content: Content,
  output: unknown,
  sentBytes: number | undefined,
  json = JSON.stringify(content),
): CheckedContent {
  const record = content as Record<string, unknown>;

  const checked: CheckedContent = {
    json,
    type: content.type,
    // The form sent counts; the stored form is checked too, so a stored content never exceeds the limit.
    tooLarge: (sentBytes ?? 0) > MAX_CONTENT_BYTES || overContentLimit(json),
    model: null,
    provider: null,
    cost: null,
    promptTokens: null,
    completionTokens: null,
    totalTokens: null,
  };
  if (content.type === "Model" || content.type === "ModelStream") {
    checked.model = record.model as string;
    checked.provider = record.provider as string;
  }
  if (content.type === "Model") {
    checked.cost = typeof record.cost === "number" ? record.cost : null;
    // Only the platform form feeds the counts: `output` is {messages, tokenUsage: {promptTokens, …}}.
    const usage =
      output !== null && typeof output === "object" ? (output as { tokenUsage?: unknown }).tokenUsage : undefined;
    if (usage !== null && typeof usage === "object") {
      const { promptTokens, completionTokens, totalTokens } = usage as Record<string, unknown>;
      checked.promptTokens = tokenCount(promptTokens);
      checked.completionTokens = tokenCount(completionTokens);
      checked.totalTokens = tokenCount(totalTokens);
    }
  }
  return checked;
}
