import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Component tests of browser-side logic (src/) and browser tests against a started server (test/).
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // What a person sees arrives after a request and a render; on 2 cores shared with another package's tests that
    // takes longer than expect.poll's default second.
    expect: { poll: { timeout: 15_000 } },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
