/**
 * `pnpm check:generated`: regenerate into a temp dir and fail when any committed generated file differs,
 * so a spec change can't land without its code (and generated code can't be edited by hand).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { GENERATED_FILES, generate } from "./generate.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const fresh = mkdtempSync(join(tmpdir(), "pharos-check-generated-"));
try {
  await generate(fresh);
  const stale = GENERATED_FILES.filter((file) => {
    const committed = join(root, file);
    return !existsSync(committed) || readFileSync(committed, "utf8") !== readFileSync(join(fresh, file), "utf8");
  });
  if (stale.length > 0) {
    for (const file of stale) {
      console.error(`✗ ${file} differs from what openapi/ generates`);
      if (existsSync(join(root, file))) {
        try {
          execFileSync("diff", ["-u", join(root, file), join(fresh, file)], { stdio: ["ignore", "pipe", "ignore"] });
        } catch (error) {
          const out = String((error as { stdout?: Buffer }).stdout ?? "");
          console.error(out.split("\n").slice(0, 40).join("\n"));
        }
      }
    }
    console.error("Run `pnpm generate` and commit the result.");
    process.exitCode = 1;
  } else {
    console.log(`✓ ${GENERATED_FILES.length} generated files match openapi/`);
  }
} finally {
  rmSync(fresh, { recursive: true, force: true });
}
