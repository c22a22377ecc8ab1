import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    // The suites share 2 cores with the other packages' when `pnpm test` runs them together: a background delivery
    // takes longer than expect.poll's default second to show its effect.
    expect: { poll: { timeout: 15_000 } },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The type tests (src/*.test-d.ts) run through tsc as part of `vitest run`.
    typecheck: { enabled: true, include: ["src/**/*.test-d.ts"], tsconfig: "./tsconfig.json" },
  },
});
