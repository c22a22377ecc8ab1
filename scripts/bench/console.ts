/**
 * The console's first load: builds it (as `pnpm start` does) and measures what a browser fetches for `/` — the
 * scripts and stylesheets index.html names — raw and gzip-compressed, against the 300 KB budget for compressed
 * JavaScript (issue 19, ADR 0022). Lazy chunks are not part of the first load and are listed apart.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const CONSOLE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../../apps/console");
const BUDGET_KB = 300;

const kb = (bytes: number) => (bytes / 1024).toFixed(1);

export function benchConsole(log: (message: string) => void): string[] {
  log("building the console (as pnpm start does)");
  execFileSync("pnpm", ["--silent", "--filter", "@pharos/console", "build"], { stdio: "ignore" });
  const dist = join(CONSOLE_DIR, "dist");
  const html = readFileSync(join(dist, "index.html"), "utf8");
  const firstLoad = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+)"/g)].map((match) => match[1] as string);
  const lazy = readdirSync(join(dist, "assets")).filter(
    (name) => name.endsWith(".js") && !firstLoad.includes(`assets/${name}`),
  );
  const rows = firstLoad.map((path) => {
    const bytes = readFileSync(join(dist, path));
    return { path, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  });
  const scripts = rows.filter((row) => row.path.endsWith(".js")).reduce((sum, row) => sum + row.gzip, 0);
  return [
    "",
    "Console first load (apps/console/dist, gzip -9)",
    "| file | raw KB | gzip KB |",
    "|---|---|---|",
    ...rows.map((row) => `| ${row.path} | ${kb(row.raw)} | ${kb(row.gzip)} |`),
    `| JavaScript on first load | | ${kb(scripts)} (target < ${BUDGET_KB} KB: ${((scripts / 1024 / BUDGET_KB) * 100).toFixed(0)} % of it) |`,
    `Lazy chunks, not on first load: ${lazy.length === 0 ? "none" : lazy.join(", ")}`,
  ];
}
