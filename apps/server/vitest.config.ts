import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    globalSetup: ["src/testing/global-setup.ts"],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // One file per operation means many small files; with a fresh module registry each, importing the app again
    // cost more than their tests. Files run one after another in a worker that keeps its modules: a test file must
    // not rely on module state another file may have changed (none mocks modules or mutates shared state).
    isolate: false,
  },
});
