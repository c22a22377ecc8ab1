import { toModelCallError } from "./model-call-error.ts";
import type { CallOptions, ModelTarget } from "./model-target.ts";

/**
 * Runs one SDK call under the caller's limits: a deadline for the whole call (the SDK's retries and their
 * back-off waits happen inside `run`, so they count) and the caller's abort signal. Any failure is rethrown
 * as a ModelCallError.
 */
export async function withinCallLimits<T>(
  target: ModelTarget,
  options: CallOptions,
  run: (abortSignal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.timeoutMs);
  // A listener removed afterwards rather than AbortSignal.any: callers may pass one long-lived signal (a worker's
  // shutdown) to thousands of calls, which must not each leave something attached to it.
  const abortFromCaller = () => controller.abort();
  if (options.signal?.aborted) controller.abort();
  else options.signal?.addEventListener("abort", abortFromCaller, { once: true });
  try {
    return await run(controller.signal);
  } catch (error) {
    throw toModelCallError(error, target, {
      timedOut,
      timeoutMs: options.timeoutMs,
      aborted: options.signal?.aborted ?? false,
    });
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", abortFromCaller);
  }
}
