/**
 * The one error type of Pharos: a code from the spec's ErrorCode enum, a message and optional details.
 * Services throw it; http/on-error.ts is the only place that turns it into a response.
 */
import type { schemas } from "@pharos/contract";

export type ErrorCode = schemas.ErrorCode;
export type ErrorDetail = schemas.ErrorDetail;

export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    /** Seconds, for RATE_LIMITED. */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export const notFound = (what: string) => new ApiError("RESOURCE_NOT_FOUND", `${what} not found.`);
export const invalid = (field: string, issue: string) =>
  new ApiError("VALIDATION_ERROR", `${field ? `${field}: ` : ""}${issue}`, [{ field, issue }]);
export const conflict = (message: string) => new ApiError("CONFLICT", message);
export const forbidden = (message = "This API key may not perform this operation.") =>
  new ApiError("FORBIDDEN", message);
