import { defineConfig } from "tsdown";

/**
 * The published form: one ESM entry with its declarations. The contract's generated types (a devDependency) are
 * bundled into index.d.ts, so the package depends on nothing of this workspace; openapi-fetch, its one runtime
 * dependency, stays external.
 */
export default defineConfig({
  entry: ["src/index.ts"],
  format: "esm",
  platform: "neutral",
  target: "es2022",
  tsconfig: "tsconfig.lib.json",
  dts: { eager: true },
  sourcemap: true,
  clean: true,
});
