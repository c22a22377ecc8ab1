import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Component tests of browser-side logic (src/) and browser tests against a started server (test/).
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
