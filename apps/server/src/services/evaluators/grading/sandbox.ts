/**
 * The JavaScript sandbox, seen from the server: user code runs in QuickJS (see quickjs-run.ts) on a worker
 * thread of its own, so that a run never blocks the server's event loop, and so that a run can always be
 * stopped: QuickJS checks its deadline only every so many operations, and code stuck in long built-in
 * operations (e.g. joining huge arrays in a loop) can go on long after it. The thread is stopped then, and the
 * next run starts a new one. Runs go to the thread one at a time.
 */
import { Worker } from "node:worker_threads";
import type { SandboxOutcome } from "./quickjs-run.ts";

export { MEMORY_LIMIT_BYTES, type SandboxOutcome } from "./quickjs-run.ts";

export interface SandboxJob {
  code: string;
  dataJson: string;
  timeoutMs: number;
}

/** Whether this module runs as TypeScript (tsx: tests, `pnpm pharos`) rather than from the built bundle. */
const runningFromSources = import.meta.url.endsWith(".ts");

/** How long past its time limit a run may take before its thread is stopped. */
const GRACE_MS = 1000;

let thread: Promise<Worker> | undefined;
let queue: Promise<unknown> = Promise.resolve();

/**
 * Calls `code` as the body of `async function (data)`, with a copy of `data` (as JSON), and waits until its
 * promise settles, `timeoutMs` passes or no job is left to run.
 */
export function runInSandbox(code: string, data: unknown, timeoutMs: number): Promise<SandboxOutcome> {
  const job: SandboxJob = { code, dataJson: JSON.stringify(data), timeoutMs };
  const outcome = queue.then(() => runJob(job));
  queue = outcome;
  return outcome;
}

async function runJob(job: SandboxJob): Promise<SandboxOutcome> {
  let worker: Worker;
  try {
    thread ??= startThread();
    worker = await thread;
  } catch (error) {
    thread = undefined;
    return { kind: "engine-failed", error: (error as Error).message };
  }
  return new Promise((resolve) => {
    const finish = (outcome: SandboxOutcome, stopThread: boolean) => {
      clearTimeout(backstop);
      worker.off("message", resolveWith).off("exit", onExit);
      if (stopThread) {
        thread = undefined;
        void worker.terminate();
      }
      resolve(outcome);
    };
    const resolveWith = (outcome: SandboxOutcome) => finish(outcome, false);
    const onExit = () => finish({ kind: "engine-failed", error: "the sandbox thread stopped" }, true);
    const backstop = setTimeout(() => finish({ kind: "timed-out" }, true), job.timeoutMs + GRACE_MS);
    worker.on("message", resolveWith).on("exit", onExit);
    worker.postMessage(job);
  });
}

function startThread(): Promise<Worker> {
  const worker = runningFromSources
    ? // The thread runs TypeScript like the rest of the server: tsx's loader is registered in it first.
      new Worker(
        `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))})
          .then(({ register }) => { register(); return import(${JSON.stringify(new URL("./sandbox-thread.ts", import.meta.url).href)}); })`,
        { eval: true },
      )
    : // The dist/ bundle (scripts/build.ts) has the thread's entry beside its chunks.
      new Worker(new URL("./sandbox-thread.js", import.meta.url));
  // An idle sandbox must not keep the process alive (a run in progress is held by its backstop timer).
  worker.unref();
  const started = new Promise<Worker>((resolve, reject) => {
    worker.once("message", () => resolve(worker));
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`the sandbox thread could not start (exit code ${code})`)));
  });
  // Always listened to, so that a failing thread never becomes an uncaught 'error' event; its 'exit' follows.
  worker.on("error", () => {});
  worker.on("exit", () => {
    if (thread === started) thread = undefined;
  });
  return started;
}
