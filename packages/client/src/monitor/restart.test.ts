/**
 * The server restarted while the monitor buffers: a real server process on a SQLite file is stopped, the
 * application keeps logging, the server starts again on the same file and port, and nothing is lost.
 */
import { tempDatabaseDir } from "@pharos/server/testing";
import { afterAll, expect, it } from "vitest";
import { createPharos } from "../pharos.ts";
import { newBootstrapKey, type PharosProcess, startPharosProcess, tracesOf, waitFor } from "../testing/pharos.ts";

const database = tempDatabaseDir();
let running: PharosProcess | undefined;
afterAll(async () => {
  await running?.process.stop("SIGKILL");
  database.dispose();
});

it("delivers every trace and span logged while the server was down, once it is back within the buffer's bounds", async () => {
  const apiKey = newBootstrapKey();
  running = await startPharosProcess(database.url(), apiKey);
  const { baseUrl, projectId } = running;
  const port = new URL(baseUrl).port;
  const monitor = createPharos({ baseUrl, apiKey }).initMonitor({
    projectId,
    flushIntervalMs: 50,
    maxBufferSize: 1_000,
    flushOnExit: false,
    backoff: { baseDelayMs: 50, maxDelayMs: 200 },
  });
  const logTraces = (prefix: string, count: number) => {
    for (let i = 0; i < count; i++) {
      const trace = monitor.logTrace({ name: `${prefix}-${i}` });
      trace.logSpan({ name: "llm-call" }).end({ status: "success" });
      trace.logSpan({ name: "tool" }).end({ status: "success" });
      trace.end({ status: "success" });
    }
  };

  logTraces("before", 10);
  await monitor.flush();
  expect(monitor.status()).toMatchObject({ sent: 30, buffered: 0 });

  await running.process.stop();
  logTraces("during", 50);
  // The monitor tries, fails and keeps them while the server is away.
  await waitFor(() => monitor.status().lastError !== null, "a failed attempt");
  expect(monitor.status()).toMatchObject({ sent: 30, buffered: 150, dropped: 0, failed: 0 });

  running = await startPharosProcess(database.url(), apiKey, Number(port));
  logTraces("after", 10);
  await monitor.flush();
  expect(monitor.status()).toMatchObject({ sent: 210, buffered: 0, dropped: 0, failed: 0 });

  const traces = await tracesOf(running.client, projectId);
  expect(traces).toHaveLength(70);
  expect(traces.every((trace) => trace.spanIds.length === 2)).toBe(true);
  await monitor.shutdown();
});
