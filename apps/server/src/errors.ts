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
    /** Seconds, for RATE_LIMITED and OVERLOADED. */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export const notFound = (what: string) => new ApiError("RESOURCE_NOT_FOUND", `${what} not found.`);

/** The most problems one error lists (the spec's `Error.details` maxItems). */
const MAX_DETAILS = 100;

/** 400 VALIDATION_ERROR listing the problems (the first hundred); the message names the first. */
export function invalidRequest(problems: readonly ErrorDetail[]): ApiError {
  const [first] = problems;
  if (first === undefined) return new ApiError("VALIDATION_ERROR", "The request is invalid.");
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : "";
  const message = `${first.field ? `${first.field}: ` : ""}${first.issue}${more}`;
  return new ApiError("VALIDATION_ERROR", message, problems.slice(0, MAX_DETAILS));
}

export const invalid = (field: string, issue: string) => invalidRequest([{ field, issue }]);

/** Throws the 400 of `problems` when there is any. */
export function failIfInvalid(problems: readonly ErrorDetail[]): void {
  if (problems.length > 0) throw invalidRequest(problems);
}

const MIB = 1024 * 1024;

/** 413 PAYLOAD_TOO_LARGE: `subject` is over the limit of `limitBytes`. */
export function tooLarge(subject: string, limitBytes: number): ApiError {
  const bytes = `${limitBytes.toLocaleString("en")} bytes`;
  const limit = limitBytes % MIB === 0 ? `${limitBytes / MIB} MB (${bytes})` : bytes;
  return new ApiError("PAYLOAD_TOO_LARGE", `${subject} exceeds the limit of ${limit}.`);
}

export const conflict = (message: string) => new ApiError("CONFLICT", message);
export const forbidden = (message = "This API key may not perform this operation.") =>
  new ApiError("FORBIDDEN", message);

/** 503 OVERLOADED: the log writes waiting for storage are at their bound; nothing of this one was stored. */
export const overloaded = (retryAfterSeconds: number) =>
  new ApiError(
    "OVERLOADED",
    `The server has more log writes waiting for storage than it can hold. Nothing was stored; retry after ${retryAfterSeconds} ${retryAfterSeconds === 1 ? "second" : "seconds"}.`,
    undefined,
    retryAfterSeconds,
  );
