/**
 * The published form, as an application gets it: `pnpm pack` (which builds dist/), `npm install <tarball>` in a
 * fresh directory outside the workspace (npm fetches openapi-fetch from the registry), then a script run by
 * plain `node` that uses every entry point against a Pharos on loopback, and a TypeScript file checked against
 * the installed declarations alone.
 */
import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { deployPrompt, type RunningPharos, startPharos, tracesOf } from "./testing/pharos.ts";

const run = promisify(execFile);
const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");
const CONSUMER_DIR = join(PACKAGE_DIR, "src/testing/consumer");
const TSC = createRequire(import.meta.url).resolve("typescript/bin/tsc");

let app: string;
let pharos: RunningPharos;
beforeAll(async () => {
  app = mkdtempSync(join(tmpdir(), "pharos-sdk-consumer-"));
  pharos = await startPharos();
}, 120_000);
afterAll(async () => {
  await pharos?.close();
  if (app) rmSync(app, { recursive: true, force: true });
});

/** pnpm as the test was started by it (`npm_execpath`), else the one on PATH. */
function pnpm(args: string[]) {
  const execPath = process.env.npm_execpath;
  return execPath?.includes("pnpm")
    ? run(process.execPath, [execPath, ...args], { cwd: PACKAGE_DIR })
    : run("pnpm", args, { cwd: PACKAGE_DIR });
}

it("packs, installs with npm outside the workspace and runs every entry point with plain node", async () => {
  await pnpm(["pack", "--pack-destination", app]);
  const { version } = JSON.parse(readFileSync(join(PACKAGE_DIR, "package.json"), "utf8"));
  const tarball = join(app, `pharos-client-${version}.tgz`);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  await run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", tarball], { cwd: app });

  const installed = JSON.parse(readFileSync(join(app, "node_modules/@pharos/client/package.json"), "utf8"));
  expect(installed.dependencies).toEqual({ "openapi-fetch": "0.17.0" });
  expect(installed.exports["."]).toEqual({ types: "./dist/index.d.ts", default: "./dist/index.js" });
  const js = readFileSync(join(app, "node_modules/@pharos/client/dist/index.js"), "utf8");
  const dts = readFileSync(join(app, "node_modules/@pharos/client/dist/index.d.ts"), "utf8");
  // Runtime-neutral: nothing of Node's on the entry, nothing of the workspace anywhere.
  expect(js).not.toMatch(/from\s+["']node:|require\(|\bBuffer\b/);
  expect([...js.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1])).toEqual(["openapi-fetch"]);
  expect(dts).not.toMatch(/@pharos\//);
  expect(dts).toMatch(/"\/logs\/trace": \{/);

  copyFileSync(join(CONSUMER_DIR, "consumer.mjs"), join(app, "consumer.mjs"));
  const { promptId, environmentId } = await deployPrompt(pharos.client, pharos.projectId, "Q: {{question}}");
  const exitTrace = `exit-${crypto.randomUUID()}`;
  const { stdout } = await run(process.execPath, ["consumer.mjs"], {
    cwd: app,
    env: {
      PATH: process.env.PATH,
      PHAROS_BASE_URL: pharos.baseUrl,
      PHAROS_API_KEY: pharos.apiKey,
      PROJECT_ID: pharos.projectId,
      PROMPT_ID: promptId,
      ENVIRONMENT_ID: environmentId,
      EXIT_TRACE: exitTrace,
    },
    timeout: 60_000,
  });
  const seen = JSON.parse(stdout.trim().split("\n").at(-1) as string);
  expect(seen).toMatchObject({
    project: pharos.projectId,
    listed: true,
    text: "Q: Where is order 8812?",
    missing: [],
    cache: { source: "server", consecutiveFailures: 0 },
    monitor: { sent: 3, failed: 0, dropped: 0 },
    webhook: [true, false],
  });
  // The process exited only after its exit hook delivered the trace it never flushed.
  const stored = await tracesOf(pharos.client, pharos.projectId);
  expect(stored.map((trace) => trace.referenceId).sort()).toEqual([seen.traceReferenceId, exitTrace].sort());

  copyFileSync(join(CONSUMER_DIR, "consumer.ts"), join(app, "consumer.ts"));
  writeFileSync(
    join(app, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        lib: ["ES2023", "DOM"],
        types: [],
        strict: true,
        noEmit: true,
        skipLibCheck: false,
      },
      files: ["consumer.ts"],
    }),
  );
  await run(process.execPath, [TSC, "-p", "tsconfig.json"], { cwd: app }).catch((error) => {
    throw new Error(`the installed declarations do not type-check a consumer:\n${error.stdout}${error.stderr}`);
  });
}, 240_000);
