/**
 * Entry point of the sandbox thread (started by sandbox.ts): loads QuickJS, says "ready", then runs one job
 * per message and answers with its outcome.
 */
import { parentPort } from "node:worker_threads";
import { loadQuickJS, runCode } from "./quickjs-run.ts";
import type { SandboxJob } from "./sandbox.ts";

const port = parentPort;
if (!port) throw new Error("sandbox-thread.ts runs as a worker thread");

await loadQuickJS();
port.on("message", async (job: SandboxJob) => {
  port.postMessage(await runCode(job.code, job.dataJson, job.timeoutMs));
});
port.postMessage("ready");
