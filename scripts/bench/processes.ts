/**
 * The processes of a benchmark run: the real server, the ceiling servers and the load generator, each a Node
 * process with tsx as its loader, pinned with `taskset` (servers on core 0, load generator on core 1) when the
 * machine has `taskset` and at least two cores.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { LoadJob, LoadResult } from "./load.ts";

export const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = resolve(BENCH_DIR, "../..");
export const SERVER_DIR = join(REPO_ROOT, "apps/server");
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

/** `taskset -c <core>` prefixes, or none when pinning is not possible here. */
export const pinning = (() => {
  const usable = availableParallelism() >= 2 && spawnSync("taskset", ["-c", "0", "true"]).status === 0;
  return {
    enabled: usable,
    server: usable ? ["taskset", "-c", "0"] : [],
    load: usable ? ["taskset", "-c", "1"] : [],
  };
})();

/** `node [--import tsx] …args`; without tsx for plain JavaScript (the server's bundle). */
function spawnNode(
  prefix: string[],
  args: string[],
  options: Parameters<typeof spawn>[2],
  typescript = true,
): ChildProcess {
  const command = [...prefix, process.execPath, ...(typescript ? ["--import", TSX_LOADER] : []), ...args];
  return spawn(command[0] as string, command.slice(1), options);
}

/** Builds the server bundle (apps/server/dist) that startPharos runs, as `pnpm start` does. */
export function buildServer(): void {
  const built = spawnSync(process.execPath, ["--import", TSX_LOADER, "scripts/build.ts"], {
    cwd: SERVER_DIR,
    encoding: "utf8",
  });
  if (built.status !== 0) throw new Error(`building the server failed:\n${built.stderr}`);
}

/** Resident set size of a process in MB (VmRSS of /proc/<pid>/status), or NaN where /proc is missing. */
export function rssMb(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface ServerHandle {
  name: string;
  pid: number | undefined;
  url: string;
  stop(): Promise<void>;
  /** The tail of its stderr and stdout, for error messages. */
  output(): string;
}

/**
 * Starts a server whose stdout and stderr go to files (so a busy access log costs it a write, not a pipe
 * someone must drain) and waits until stdout has a JSON line for which `address` returns the base URL.
 */
async function startLogged(
  name: string,
  prefix: string[],
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; logDir: string; typescript?: boolean },
  address: (record: Record<string, unknown>) => string | undefined,
): Promise<ServerHandle> {
  const stdoutPath = join(options.logDir, `${name}.out.log`);
  const stderrPath = join(options.logDir, `${name}.err.log`);
  const out = openSync(stdoutPath, "w");
  const err = openSync(stderrPath, "w");
  const child = spawnNode(
    prefix,
    args,
    { cwd: options.cwd, env: options.env, stdio: ["ignore", out, err] },
    options.typescript ?? true,
  );
  closeSync(out);
  closeSync(err);
  let exited = false;
  const exit = new Promise<void>((done) =>
    child.once("exit", () => {
      exited = true;
      done();
    }),
  );
  const tail = (path: string) => {
    try {
      return readFileSync(path, "utf8").slice(-4_000);
    } catch {
      return "";
    }
  };
  const output = () => `--- ${name} stderr ---\n${tail(stderrPath)}\n--- ${name} stdout ---\n${tail(stdoutPath)}`;

  const deadline = Date.now() + 60_000;
  let url: string | undefined;
  while (url === undefined) {
    if (exited) throw new Error(`${name} exited before listening\n${output()}`);
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`${name} did not start listening within 60 s\n${output()}`);
    }
    await sleep(100);
    for (const line of tail(stdoutPath).split("\n")) {
      if (!line.startsWith("{")) continue;
      try {
        url = address(JSON.parse(line) as Record<string, unknown>) ?? url;
      } catch {
        // a line still being written
      }
    }
  }
  return {
    name,
    pid: child.pid,
    url,
    output,
    async stop() {
      if (!exited) child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      await exit;
      clearTimeout(timer);
    },
  };
}

const BENCH_SECRET_KEY = "0".repeat(64);

/** The real server as `pnpm start` runs it: `node apps/server/dist/main.js` (see buildServer) on loopback, PORT=0. */
export function startPharos(name: string, env: Record<string, string>, logDir: string): Promise<ServerHandle> {
  const clean = { ...process.env };
  for (const variable of Object.keys(clean)) {
    if (variable.startsWith("PHAROS_") || ["PORT", "HOST", "DATABASE_URL", "LOG_LEVEL"].includes(variable)) {
      delete clean[variable];
    }
  }
  return startLogged(
    name,
    pinning.server,
    ["--enable-source-maps", "dist/main.js"],
    {
      cwd: SERVER_DIR,
      // A throwaway secret key: PostgreSQL requires one, and the bench's databases are dropped after the run.
      env: { ...clean, PORT: "0", HOST: "127.0.0.1", PHAROS_SECRET_KEY: BENCH_SECRET_KEY, ...env },
      logDir,
      typescript: false,
    },
    (record) => (typeof record.url === "string" ? record.url : undefined),
  );
}

/** A ceiling server of ceiling-server.ts. */
export function startCeiling(mode: "bare" | "validate", logDir: string): Promise<ServerHandle> {
  return startLogged(
    `ceiling-${mode}`,
    pinning.server,
    [join(BENCH_DIR, "ceiling-server.ts"), mode],
    { cwd: BENCH_DIR, env: { ...process.env, PORT: "0" }, logDir },
    (record) => (typeof record.port === "number" ? `http://127.0.0.1:${record.port}` : undefined),
  );
}

export interface LoadGenerator {
  run(job: LoadJob): Promise<LoadResult>;
  stop(): void;
}

/** The load generator process (load.ts), driven over IPC, one job at a time. */
export function startLoadGenerator(): LoadGenerator {
  const child = spawnNode(pinning.load, [join(BENCH_DIR, "load.ts")], {
    cwd: BENCH_DIR,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  let nextId = 0;
  const pending = new Map<number, { resolve: (r: LoadResult) => void; reject: (e: Error) => void }>();
  child.on("message", (message: { id: number; result?: LoadResult; error?: string }) => {
    const waiter = pending.get(message.id);
    pending.delete(message.id);
    if (message.error !== undefined) waiter?.reject(new Error(`load generator: ${message.error}`));
    else waiter?.resolve(message.result as LoadResult);
  });
  child.once("exit", (code, signal) => {
    for (const waiter of pending.values()) waiter.reject(new Error(`load generator exited (${code ?? signal})`));
    pending.clear();
  });
  return {
    run(job) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        child.send({ id, job });
      });
    },
    stop() {
      if (child.connected) child.disconnect();
      if (child.exitCode === null) child.kill("SIGTERM");
    },
  };
}
