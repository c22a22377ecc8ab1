import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    // The suites share 2 cores with the other packages' when `pnpm test` runs them together.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Files run one after another in one worker that keeps its modules: importing the server, the spec and ajv
    // again for every file cost about as much as the files' tests. Module state a file relies on is reset by the
    // file (target.ts: `observed`).
    isolate: false,
  },
});
