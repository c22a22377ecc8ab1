import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    globalSetup: ["src/testing/global-setup.ts"],
    // A background delivery or worker shows its effect after a few ticks; on 2 cores shared with another package's
    // tests that takes longer than expect.poll's default second.
    expect: { poll: { timeout: 15_000 } },
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // One file per operation means many small files; with a fresh module registry each, importing the app again
    // cost more than their tests. Files run one after another in a worker that keeps its modules: a test file must
    // not rely on module state another file may have changed (none mocks modules or mutates shared state).
    isolate: false,
  },
});
