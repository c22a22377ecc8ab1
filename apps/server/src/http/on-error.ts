import { openapiDocument } from "@pharos/contract";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ApiError, type ErrorCode, type ErrorDetail } from "../errors.ts";

/** Every code of the spec has exactly one status; a new code in the spec fails to compile until mapped here. */
export const codeToStatus = {
  VALIDATION_ERROR: 400,
  INVALID_CURSOR: 400,
  AUTHENTICATION_REQUIRED: 401,
  FORBIDDEN: 403,
  RESOURCE_NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  // An upstream LLM provider failed a prompt run (runPrompt): the gateway's status, not a fault of this server.
  PROVIDER_ERROR: 502,
  // The server as a whole is saturated (not this client over its quota, which is 429): see ADR 0010.
  OVERLOADED: 503,
} as const satisfies Record<ErrorCode, ContentfulStatusCode>;

const { Error: errorSchema, ErrorDetail: detailSchema } = openapiDocument.components.schemas;

/**
 * The spec's bounds on an error body. Messages and details quote the request (every unknown key of a body,
 * a field's path of long keys), so the request alone would decide their length.
 */
const LIMITS = {
  message: errorSchema.properties.error.properties.message.maxLength,
  details: errorSchema.properties.error.properties.details.maxItems,
  field: detailSchema.properties.field.maxLength,
  issue: detailSchema.properties.issue.maxLength,
};

/** `text` cut to at most `max` characters, ending with an ellipsis; never between the halves of a surrogate pair. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\ud800-\udbff]/.test(text.charAt(max - 2)) ? max - 2 : max - 1;
  return `${text.slice(0, end)}…`;
}

const clipDetail = ({ field, issue }: ErrorDetail): ErrorDetail => ({
  field: clip(field, LIMITS.field),
  issue: clip(issue, LIMITS.issue),
});

export function errorResponse(c: Context, error: ApiError): Response {
  if (error.retryAfter !== undefined) c.header("Retry-After", String(error.retryAfter));
  const details = error.details?.slice(0, LIMITS.details).map(clipDetail);
  const body = {
    error: { code: error.code, message: clip(error.message, LIMITS.message), ...(details && { details }) },
  };
  return c.json(body, codeToStatus[error.code]);
}

/** The app's single onError: typed errors keep their code, anything else is a 500 that hides internals. */
export function onError(err: Error, c: Context): Response {
  if (err instanceof ApiError) return errorResponse(c, err);
  // Hono's own request errors: malformed JSON (400), a content type other than JSON (415), and the like.
  if (err instanceof HTTPException && err.status >= 400 && err.status < 500) {
    const message = err.status === 415 ? "Content-Type must be application/json." : "Request body is not valid JSON.";
    return errorResponse(c, new ApiError("VALIDATION_ERROR", message));
  }
  c.get("logger")?.error({ err }, "unhandled error");
  return errorResponse(c, new ApiError("INTERNAL_ERROR", "Internal server error."));
}
