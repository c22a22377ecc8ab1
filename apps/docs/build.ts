/**
 * Builds the static API reference (Redoc) from the bundled spec into dist/index.html, with Redoc's script
 * inlined, and refuses a page that would load a script or stylesheet from another host at view time.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const spec = resolve(here, "../../packages/contract/openapi.json");
const output = join(here, "dist/index.html");

execFileSync(
  resolve(here, "node_modules/.bin/redocly"),
  ["build-docs", spec, "--output", output, "--inlineBundle", "--title", "Pharos API reference"],
  { stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, REDOCLY_TELEMETRY: "off" } },
);

const html = readFileSync(output, "utf8");
const external = [...html.matchAll(/<(?:script|link)\b[^>]*\b(?:src|href)=["'](https?:)?\/\/[^"']+["'][^>]*>/gi)].map(
  ([tag]) => tag,
);
if (external.length > 0) {
  console.error(`dist/index.html loads resources from other hosts:\n${external.join("\n")}`);
  process.exit(1);
}
console.log(`API reference written to ${output} (${Math.round(html.length / 1024)} KiB, self-contained)`);
