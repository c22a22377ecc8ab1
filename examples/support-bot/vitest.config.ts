import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    // The example runs as a process of its own beside a Pharos and the fake provider, on 2 shared cores.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
