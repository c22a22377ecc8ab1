import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ApiError, type ErrorCode } from "../errors.ts";

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
} as const satisfies Record<ErrorCode, ContentfulStatusCode>;

export function errorResponse(c: Context, error: ApiError): Response {
  if (error.retryAfter !== undefined) c.header("Retry-After", String(error.retryAfter));
  const body = {
    error: { code: error.code, message: error.message, ...(error.details && { details: error.details }) },
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
