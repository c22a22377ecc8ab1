import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    // The suites share 2 cores with the other packages' when `pnpm test` runs them together.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
