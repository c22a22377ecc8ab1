import { APICallError, RetryError } from "ai";
import type { ModelTarget } from "./model-target.ts";

/** A model call that did not produce an answer; `message` is a one-line reason fit to show to people. */
export class ModelCallError extends Error {
  override name = "ModelCallError";
}

/** Why a call was cut short by the caller's limits, if it was. */
export interface CallLimitState {
  timedOut: boolean;
  timeoutMs: number;
  aborted: boolean;
}

/** Turns whatever the AI SDK threw into a ModelCallError with a one-line message. */
export function toModelCallError(error: unknown, target: ModelTarget, limits: CallLimitState): ModelCallError {
  if (error instanceof ModelCallError) return error;
  if (limits.timedOut) return new ModelCallError(`timed out after ${limits.timeoutMs} ms`);
  if (limits.aborted) return new ModelCallError("aborted");
  if (RetryError.isInstance(error))
    return new ModelCallError(describeApiFailure(target, error.lastError, error.errors.length));
  return new ModelCallError(describeApiFailure(target, error, 1));
}

function describeApiFailure(target: ModelTarget, error: unknown, attempts: number): string {
  const tries = `after ${attempts} ${attempts === 1 ? "attempt" : "attempts"}`;
  if (APICallError.isInstance(error)) {
    const outcome = error.statusCode === undefined ? "request failed" : `returned ${error.statusCode}`;
    return oneLine(`${target.provider} ${outcome} ${tries}: ${error.message}`);
  }
  return oneLine(error instanceof Error ? error.message : String(error));
}

const MAX_MESSAGE_LENGTH = 1000;

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > MAX_MESSAGE_LENGTH ? `${line.slice(0, MAX_MESSAGE_LENGTH - 1)}…` : line;
}
