/**
 * Real processes for the tests of the server entry point and the CLI: `src/main.ts` and `src/cli/main.ts`
 * run by Node with tsx as its loader, on loopback, each with a bounded wait. `node --import tsx` rather than
 * the `tsx` command: the command runs the script in a child process of its own, so a signal sent to it
 * arrives second-hand and a SIGKILL would leave that child running.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { closeSync, constants, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import pg from "pg";

export const SERVER_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
const runTs = (script: string, args: string[] = []) => ["--import", TSX_LOADER, script, ...args];

/** A full Pharos key (not global: `toMatch` keeps no state between calls). */
export const KEY_PATTERN = /phk_[0-9A-HJKMNP-TV-Z]{26}_[A-Za-z0-9_-]{43}/;

/** Every full key printed in a text. */
export const keysIn = (text: string) => text.match(new RegExp(KEY_PATTERN.source, "g")) ?? [];

/** The secret key processes on PostgreSQL get unless a test sets PHAROS_SECRET_KEY (PostgreSQL requires one). */
export const TEST_SECRET_KEY = "7e1f0c6a2b9d4e3f8a5c1b7d9e2f4a6c8b0d2e4f6a8c0b2d4e6f8a0c2b4d6e8f";

/** The parent's environment without the variables the processes under test read. */
function baseEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const clean = { ...process.env };
  for (const name of Object.keys(clean)) {
    if (["PORT", "HOST", "DATABASE_URL", "LOG_LEVEL"].includes(name) || name.startsWith("PHAROS_")) delete clean[name];
  }
  const postgres = env.DATABASE_URL?.startsWith("postgres") ?? false;
  return { ...clean, ...(postgres && { PHAROS_SECRET_KEY: TEST_SECRET_KEY }), ...env };
}

/** A temporary directory for SQLite files; removed by `dispose`. */
export function tempDatabaseDir(): { url: (name?: string) => string; dispose(): void } {
  const dir = mkdtempSync(join(tmpdir(), "pharos-process-"));
  return {
    url: (name = "pharos.db") => `sqlite:${join(dir, name)}`,
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServerProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** stdout's JSON lines (log records), parsed. */
  logs(): Record<string, any>[];
  /** Resolves with the first log record that matches, or fails after `timeoutMs`. */
  waitForLog(match: (record: Record<string, any>) => boolean, timeoutMs?: number): Promise<Record<string, any>>;
  /** The base URL, once the server logs that it is listening. */
  ready(timeoutMs?: number): Promise<string>;
  exited: Promise<Exit>;
  /** Sends `signal` (default SIGTERM) and waits for the exit. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<Exit>;
  /**
   * Stops reading the process's stdout and fills the pipe, so that its next writes find it full, as when its
   * parent died with the pipe still open. Needs `{ stallableStdout: true }`.
   */
  stallStdout(): void;
}

export interface ProcessOptions {
  /** stdout through a named pipe the test can fill (`stallStdout`), instead of an anonymous pipe. */
  stallableStdout?: boolean;
}

const withTimeout = <T>(promise: Promise<T>, ms: number, what: string, context: () => string) =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}\n${context()}`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });

/** Starts `src/main.ts` on a free loopback port (PORT=0) with `env` added. */
export function startServer(env: Record<string, string>, options: ProcessOptions = {}): ServerProcess {
  return startProcess(runTs("src/main.ts"), { PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", ...env }, options);
}

/** Starts a built server (`node <dir>/main.js`, see scripts/build.ts) on a free loopback port with `env` added. */
export function startBuiltServer(mainJs: string, env: Record<string, string>): ServerProcess {
  return startProcess(["--enable-source-maps", mainJs], { PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", ...env });
}

/** Starts `pharos worker …args` with `env` added; `ready()` resolves with its worker id once it runs. */
export function startWorkerProcess(
  env: Record<string, string>,
  args: string[] = [],
  options: ProcessOptions = {},
): ServerProcess {
  const worker = startProcess(runTs("src/cli/main.ts", ["worker", ...args]), { LOG_LEVEL: "info", ...env }, options);
  return {
    ...worker,
    ready: async (timeoutMs) =>
      (await worker.waitForLog((record) => typeof record.workerId === "string", timeoutMs)).workerId,
  };
}

/**
 * A named pipe for a child's stdout: the test reads it until `stall()`, which stops reading and fills it. A second
 * reader that never reads stays open meanwhile, so that the child's writes find the pipe full rather than closed.
 */
function stallablePipe() {
  const dir = mkdtempSync(join(tmpdir(), "pharos-stdout-"));
  const path = join(dir, "stdout");
  execFileSync("mkfifo", [path]);
  const { O_RDONLY, O_WRONLY, O_NONBLOCK } = constants;
  const idleReader = openSync(path, O_RDONLY | O_NONBLOCK);
  const reader = new net.Socket({ fd: openSync(path, O_RDONLY | O_NONBLOCK), readable: true, writable: false });
  const childEnd = openSync(path, O_WRONLY | O_NONBLOCK);
  return {
    childEnd,
    reader,
    stall() {
      reader.destroy();
      const filler = openSync(path, O_WRONLY | O_NONBLOCK);
      try {
        for (;;) writeSync(filler, Buffer.alloc(64 * 1024, "x"));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
      } finally {
        closeSync(filler);
      }
    },
    dispose() {
      reader.destroy();
      closeSync(idleReader);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function startProcess(args: string[], env: Record<string, string>, options: ProcessOptions = {}): ServerProcess {
  const pipe = options.stallableStdout ? stallablePipe() : undefined;
  const child = spawn(process.execPath, args, {
    cwd: SERVER_DIR,
    env: baseEnv(env),
    stdio: ["ignore", pipe ? pipe.childEnd : "pipe", "pipe"],
  });
  if (pipe) closeSync(pipe.childEnd);
  let out = "";
  let err = "";
  const listeners = new Set<() => void>();
  (pipe?.reader ?? child.stdout)?.on("data", (chunk: Buffer) => {
    out += chunk.toString("utf8");
    for (const listener of listeners) listener();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString("utf8");
  });
  const exited = new Promise<Exit>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  if (pipe) void exited.then(() => pipe.dispose());
  const context = () => `--- stdout ---\n${out}--- stderr ---\n${err}`;

  const logs = () =>
    out
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, any>);

  const waitForLog: ServerProcess["waitForLog"] = (match, timeoutMs = 20_000) => {
    const found = new Promise<Record<string, any>>((resolve, reject) => {
      const check = () => {
        const record = logs().find(match);
        if (record) {
          listeners.delete(check);
          resolve(record);
        }
      };
      listeners.add(check);
      check();
      exited.then((exit) => {
        listeners.delete(check);
        reject(new Error(`the server exited (${JSON.stringify(exit)}) before the expected log line\n${context()}`));
      });
    });
    return withTimeout(found, timeoutMs, "a log line", context);
  };

  return {
    child,
    stdout: () => out,
    stderr: () => err,
    logs,
    waitForLog,
    ready: async (timeoutMs) => (await waitForLog((record) => typeof record.url === "string", timeoutMs)).url,
    exited,
    async stop(signal = "SIGTERM", timeoutMs = 15_000) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return withTimeout(exited, timeoutMs, `the exit after ${signal}`, context);
    },
    stallStdout() {
      if (!pipe) throw new Error("stallStdout() needs a process started with { stallableStdout: true }");
      pipe.stall();
    },
  };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `scripts/build.ts <outdir>`, the server's bundle for `pnpm start`. */
export function buildServerBundle(outdir: string): Promise<CliResult> {
  return runScript(runTs("scripts/build.ts", [outdir]), {}, 60_000);
}

/** Runs `src/cli/main.ts ...args` to completion (bounded). */
export function runCliProcess(args: string[], env: Record<string, string>, timeoutMs = 20_000): Promise<CliResult> {
  return runScript(runTs("src/cli/main.ts", args), env, timeoutMs);
}

function runScript(nodeArgs: string[], env: Record<string, string>, timeoutMs: number): Promise<CliResult> {
  const child = spawn(process.execPath, nodeArgs, {
    cwd: SERVER_DIR,
    env: baseEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const done = new Promise<CliResult>((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
  return withTimeout(done, timeoutMs, `node ${nodeArgs.slice(2).join(" ")}`, () => `${stdout}\n${stderr}`).catch(
    (error) => {
      child.kill("SIGKILL");
      throw error;
    },
  );
}

/** A new schema on the PostgreSQL test server, named in the URL (`options=-c search_path=…`) as an operator would. */
export async function freshPostgresSchema(url: string) {
  const schema = `proc_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const run = async (statement: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await run(`create schema ${schema}`);
  const withSchema = new URL(url);
  withSchema.searchParams.set("options", `-c search_path=${schema}`);
  return { url: withSchema.toString(), dispose: () => run(`drop schema ${schema} cascade`) };
}

/**
 * A client of one server process's API with one key: resolves with the JSON body of a 2xx or 3xx answer and
 * throws with the status and body of any other, so a process test reads as the steps it takes.
 */
export function processApi(url: string, key: string) {
  return async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${url}/v2${path}`, {
      method,
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const payload = (await response.json()) as any;
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(payload)}`);
    return payload;
  };
}
