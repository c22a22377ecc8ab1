/**
 * `pharos worker` as an operator meets it: its help, the configurations it refuses before starting, and a stop
 * that ends even when stdout takes nothing.
 */
import { describe, expect, it } from "vitest";
import { EXIT_UNCLEAN } from "../shutdown.ts";
import { postgresUrl } from "../testing/harness.ts";
import { freshPostgresSchema, runCliProcess, startWorkerProcess, tempDatabaseDir } from "../testing/processes.ts";

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

describe.runIf(postgresUrl)("pharos worker stopping [postgres]", () => {
  it(`exits ${EXIT_UNCLEAN} after SIGTERM when its stdout is a pipe nobody reads, instead of waiting for a reader`, async () => {
    const database = await freshPostgresSchema(postgresUrl as string);
    const graceMs = 2000;
    const worker = startWorkerProcess({ DATABASE_URL: database.url, PHAROS_SHUTDOWN_GRACE_MS: String(graceMs) }, [], {
      stallableStdout: true,
    });
    try {
      await worker.ready();
      worker.stallStdout();
      // The grace period, the second the last log lines get, and room for a loaded machine.
      expect(await worker.stop("SIGTERM", graceMs + 1000 + 5000)).toEqual({ code: EXIT_UNCLEAN, signal: null });
    } finally {
      await worker.stop("SIGKILL").catch(() => {});
      await database.dispose();
    }
  });
});
