import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    // An operation's cases run one after another against one server; a body of 32 MiB takes a while on the
    // 2 cores `pnpm test` shares with the other packages.
    testTimeout: 300_000,
    hookTimeout: 120_000,
  },
});
