/**
 * `pnpm --filter @pharos/server build [outdir]`: the server as plain JavaScript for `pnpm start` and the
 * benchmark, bundled by esbuild into `dist/` (default). Running the TypeScript sources through tsx costs about
 * 80 MB of memory for the loader and its caches; tests and `pnpm pharos` keep running the sources.
 *
 * The workspace's own packages (TypeScript sources) are bundled; npm packages stay external and load from
 * node_modules as usual. Chunks are split so the evaluation pipeline still loads only with the first row.
 * The JavaScript sandbox's thread gets an entry of its own (`sandbox-thread.js`, found beside the chunks).
 */
import { readFileSync, rmSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const SERVER_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const outdir = resolve(process.argv[2] ?? `${SERVER_DIR}/dist`);
const manifest = JSON.parse(readFileSync(`${SERVER_DIR}/package.json`, "utf8")) as {
  dependencies: Record<string, string>;
};
const external = Object.keys(manifest.dependencies).filter((name) => !name.startsWith("@pharos/"));

rmSync(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: SERVER_DIR,
  entryPoints: {
    main: "src/main.ts",
    "sandbox-thread": "src/services/evaluators/grading/sandbox-thread.ts",
  },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // Subpaths too (`hono/body-limit`, `ai/…`): every npm package is resolved by Node at run time.
  external: external.flatMap((name) => [name, `${name}/*`]),
  sourcemap: "linked",
  logLevel: "warning",
});
process.stderr.write(`server built into ${outdir}\n`);
