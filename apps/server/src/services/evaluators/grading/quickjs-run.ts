/**
 * Runs untrusted JavaScript in QuickJS compiled to WebAssembly (inside the sandbox thread, see sandbox.ts): the
 * code sees the ECMAScript built-ins and the data it is given, and nothing of the host (no `require`,
 * `process`, network, file system or timers). Every run gets a fresh runtime with a memory limit, a stack
 * limit and a wall-clock deadline, and every handle is disposed before it returns. Once the WebAssembly module
 * is loaded a run is synchronous: the code only makes progress while its pending jobs are executed here.
 */
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSWASMModule,
  RELEASE_SYNC,
  Scope,
} from "quickjs-emscripten";

export const MEMORY_LIMIT_BYTES = 64 * 1024 * 1024;
const WASM_PAGE_BYTES = 64 * 1024;
/** The size the module starts with (its default). */
const INITIAL_WASM_BYTES = 16 * 1024 * 1024;
// A generous limit: QuickJS's C stack lives in WebAssembly frames on the thread's own stack (4 MB for a
// worker thread), which must not overflow before QuickJS's check fires. 256 KB allows about 1,500 nested calls.
const MAX_STACK_BYTES = 256 * 1024;
/** Pending jobs run in batches so that the deadline is also checked between jobs. */
const JOBS_PER_BATCH = 1000;

export type SandboxOutcome =
  | { kind: "returned"; value: unknown }
  | { kind: "does-not-compile"; error: string }
  | { kind: "threw"; error: string }
  | { kind: "timed-out" }
  | { kind: "out-of-memory" }
  | { kind: "never-settled" }
  | { kind: "engine-failed"; error: string };

// Node has WebAssembly, but @types/node 20 does not declare it (its types come with the DOM library).
const WasmMemory = (globalThis as unknown as { WebAssembly: { Memory: new (size: WasmMemorySize) => object } })
  .WebAssembly.Memory;
interface WasmMemorySize {
  /** In 64 KB pages. */
  initial: number;
  maximum: number;
}

let modulePromise: Promise<QuickJSWASMModule> | undefined;

/**
 * The module is shared by the runs, one at a time. Its whole WebAssembly memory is capped at the memory limit:
 * the runtime's own limit does not hold on its own in this build (a loop building strings grew the heap to
 * 2 GB under a 64 MB runtime limit), while a memory that cannot grow makes allocations fail, which QuickJS
 * reports as "out of memory".
 */
export function loadQuickJS(): Promise<QuickJSWASMModule> {
  modulePromise ??= newQuickJSWASMModuleFromVariant(
    newVariant(RELEASE_SYNC, {
      wasmMemory: () =>
        new WasmMemory({
          initial: INITIAL_WASM_BYTES / WASM_PAGE_BYTES,
          maximum: MEMORY_LIMIT_BYTES / WASM_PAGE_BYTES,
        }),
    }),
  ).catch((error: unknown) => {
    modulePromise = undefined;
    throw error;
  });
  return modulePromise;
}

/**
 * Calls `code` as the body of `async function (data)`, with `data` parsed from `dataJson`, and waits until its
 * promise settles, `timeoutMs` passes or no job is left to run.
 */
export async function runCode(code: string, dataJson: string, timeoutMs: number): Promise<SandboxOutcome> {
  const loading = loadQuickJS();
  const module = await loading;
  const scope = new Scope();
  let outcome: SandboxOutcome;
  let moduleBroken = false;
  try {
    outcome = run(module, scope, code, dataJson, Date.now() + timeoutMs);
  } catch (error) {
    // A failure of the engine itself, not of the code.
    outcome = { kind: "engine-failed", error: (error as Error).message };
    moduleBroken = true;
  }
  try {
    scope.dispose();
  } catch {
    // quickjs-emscripten 0.32 can abort while freeing a runtime that ran out of memory or allocated many objects
    // in promise jobs (its issues #257 and #269). The outcome is already known; only the module is lost.
    moduleBroken = true;
  }
  // An aborted module refuses every later call, and one that failed midway may be inconsistent: load a new one.
  if (moduleBroken && modulePromise === loading) modulePromise = undefined;
  return outcome;
}

function run(
  module: QuickJSWASMModule,
  scope: Scope,
  code: string,
  dataJson: string,
  deadline: number,
): SandboxOutcome {
  let interrupted = false;
  const runtime = scope.manage(
    module.newRuntime({
      memoryLimitBytes: MEMORY_LIMIT_BYTES,
      maxStackSizeBytes: MAX_STACK_BYTES,
      interruptHandler: () => {
        interrupted = Date.now() > deadline;
        return interrupted;
      },
    }),
  );
  const context = scope.manage(runtime.newContext());
  const string = (value: string) => scope.manage(context.newString(value));

  // QuickJS's own AsyncFunction constructor compiles the body: a syntax error comes back as a SyntaxError and
  // the result is always an async function. The data is parsed inside, so no host object is ever exposed.
  const asyncFunction = scope.manage(context.evalCode("(async function () {}).constructor"));
  if (asyncFunction.error) return failure(context, asyncFunction.error, interrupted);
  const fn = scope.manage(context.callFunction(asyncFunction.value, context.undefined, string("data"), string(code)));
  if (fn.error) {
    if (interrupted) return { kind: "timed-out" };
    return { kind: "does-not-compile", error: describeThrown(context.dump(fn.error)) };
  }
  const json = scope.manage(context.getProp(context.global, "JSON"));
  const parse = scope.manage(context.getProp(json, "parse"));
  const input = scope.manage(context.callFunction(parse, json, string(dataJson)));
  if (input.error) return failure(context, input.error, interrupted);
  const promise = scope.manage(context.callFunction(fn.value, context.undefined, input.value));
  if (promise.error) return failure(context, promise.error, interrupted);

  let state = context.getPromiseState(promise.value);
  while (state.type === "pending" && runtime.hasPendingJob() && Date.now() <= deadline) {
    const jobs = scope.manage(runtime.executePendingJobs(JOBS_PER_BATCH));
    if (jobs.error) return failure(context, jobs.error, interrupted);
    state = context.getPromiseState(promise.value);
  }
  if (state.type === "pending") return Date.now() > deadline ? { kind: "timed-out" } : { kind: "never-settled" };
  if (state.type === "rejected") return failure(context, scope.manage(state.error), interrupted);
  if (interrupted) return { kind: "timed-out" };
  const returned: unknown = context.dump(scope.manage(state.value));
  // Objects come out as JSON; a bigint or a symbol cannot be posted back to the server's thread.
  return {
    kind: "returned",
    value: typeof returned === "bigint" || typeof returned === "symbol" ? String(returned) : returned,
  };
}

function failure(context: QuickJSContext, error: QuickJSHandle, interrupted: boolean): SandboxOutcome {
  if (interrupted) return { kind: "timed-out" };
  const thrown = context.dump(error);
  if (isError(thrown) && thrown.name === "InternalError" && thrown.message === "out of memory") {
    return { kind: "out-of-memory" };
  }
  return { kind: "threw", error: describeThrown(thrown) };
}

function describeThrown(thrown: unknown): string {
  if (isError(thrown)) return `${thrown.name}: ${thrown.message}`;
  if (typeof thrown === "string") return thrown;
  try {
    return String(JSON.stringify(thrown));
  } catch {
    return String(thrown); // a bigint or a symbol
  }
}

const isError = (value: unknown): value is { name: string; message: string } =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as { name?: unknown }).name === "string" &&
  typeof (value as { message?: unknown }).message === "string";
