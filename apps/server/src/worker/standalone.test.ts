/** `pharos worker` as an operator meets it: its help, and the configurations it refuses before starting. */
import { describe, expect, it } from "vitest";
import { runCliProcess, tempDatabaseDir } from "../testing/processes.ts";

describe("pharos worker", () => {
  it("prints its usage with --help", async () => {
    const result = await runCliProcess(["worker", "--help"], {});
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Usage: pharos worker [--concurrency <n>]");
  });

  it("refuses bad arguments (2) and a configuration it cannot run with (1), with a message", async () => {
    const files = tempDatabaseDir();
    try {
      const postgres = "postgres://postgres@127.0.0.1:5432/test";
      const cases: [string[], Record<string, string>, number, string][] = [
        [
          ["--concurrency", "0"],
          { DATABASE_URL: postgres, PHAROS_SECRET_KEY: "a".repeat(64) },
          2,
          "--concurrency must be a whole number from 1 to 100",
        ],
        [["--verbose"], {}, 2, "Unknown option '--verbose'"],
        [[], { DATABASE_URL: files.url() }, 1, "standalone workers need PostgreSQL"],
        [[], { DATABASE_URL: postgres, PHAROS_SECRET_KEY: "" }, 1, "PHAROS_SECRET_KEY is required with PostgreSQL"],
      ];
      for (const [args, env, code, message] of cases) {
        const result = await runCliProcess(["worker", ...args], env);
        expect(result.code, result.stderr).toBe(code);
        expect(result.stderr).toContain(message);
      }
    } finally {
      files.dispose();
    }
  });
});
