import { expect, it } from "vitest";
import { ConfigError, loadServerConfig } from "./config.ts";

it("reads defaults, resolves relative SQLite paths against the repository root, and reads rate limits", () => {
  const config = loadServerConfig({ PHAROS_RATE_LIMIT_OTHER: "120", PHAROS_RATE_LIMIT_LOG_SPANS: "" }, "/srv/pharos");
  expect(config).toMatchObject({
    port: 8080,
    host: "0.0.0.0",
    databaseUrl: "sqlite:/srv/pharos/data/pharos.db",
    logLevel: "info",
    rateLimits: { other: 120 },
    rateLimitScope: "shared",
  });
  expect(loadServerConfig({ PHAROS_RATE_LIMIT_SCOPE: "process" }).rateLimitScope).toBe("process");
});

it("reports every problem at once", () => {
  const env = {
    PORT: "eighty",
    LOG_LEVEL: "loud",
    PHAROS_RATE_LIMIT_DEPLOYMENTS: "-5",
    PHAROS_RATE_LIMIT_SCOPE: "cluster",
    DATABASE_URL: "mysql://x",
  };
  try {
    loadServerConfig(env);
    expect.unreachable();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join("\n");
    for (const name of [
      "PORT",
      "LOG_LEVEL",
      "PHAROS_RATE_LIMIT_DEPLOYMENTS",
      "PHAROS_RATE_LIMIT_SCOPE",
      "DATABASE_URL",
    ]) {
      expect(problems).toContain(name);
    }
  }
});

it("reads the shutdown grace period, within its bounds", () => {
  expect(loadServerConfig({}).shutdownGraceMs).toBe(10_000);
  expect(loadServerConfig({ PHAROS_SHUTDOWN_GRACE_MS: "2500" }).shutdownGraceMs).toBe(2500);
  for (const value of ["999", "600001", "2s"]) {
    expect(() => loadServerConfig({ PHAROS_SHUTDOWN_GRACE_MS: value })).toThrow(
      `PHAROS_SHUTDOWN_GRACE_MS must be a whole number from 1000 to 600000, not "${value}"`,
    );
  }
});

it("reads the HTTP timeouts; the headers may not take longer than the whole request", () => {
  expect(loadServerConfig({}).http).toEqual({
    headersTimeoutMs: 10_000,
    requestTimeoutMs: 60_000,
    keepAliveTimeoutMs: 5_000,
  });
  const env = {
    PHAROS_HEADERS_TIMEOUT_MS: "2000",
    PHAROS_REQUEST_TIMEOUT_MS: "3000",
    PHAROS_KEEP_ALIVE_TIMEOUT_MS: "65000",
  };
  expect(loadServerConfig(env).http).toEqual({
    headersTimeoutMs: 2000,
    requestTimeoutMs: 3000,
    keepAliveTimeoutMs: 65_000,
  });
  expect(() => loadServerConfig({ PHAROS_HEADERS_TIMEOUT_MS: "5000", PHAROS_REQUEST_TIMEOUT_MS: "4000" })).toThrow(
    "PHAROS_HEADERS_TIMEOUT_MS (5000) may not exceed PHAROS_REQUEST_TIMEOUT_MS (4000)",
  );
  expect(() => loadServerConfig({ PHAROS_KEEP_ALIVE_TIMEOUT_MS: "0" })).toThrow(
    'PHAROS_KEEP_ALIVE_TIMEOUT_MS must be a whole number from 1000 to 600000, not "0"',
  );
});

it("reads the bounds of the log write queue", () => {
  expect(loadServerConfig({}).logWriteQueue).toEqual({ maxPendingWrites: 256, maxPendingBytes: 64 * 1024 * 1024 });
  const env = { PHAROS_LOG_WRITE_QUEUE_WRITES: "1000", PHAROS_LOG_WRITE_QUEUE_MB: "8" };
  expect(loadServerConfig(env).logWriteQueue).toEqual({ maxPendingWrites: 1000, maxPendingBytes: 8 * 1024 * 1024 });
  expect(() => loadServerConfig({ PHAROS_LOG_WRITE_QUEUE_WRITES: "0" })).toThrow(
    'PHAROS_LOG_WRITE_QUEUE_WRITES must be a whole number from 1 to 100000, not "0"',
  );
  expect(() => loadServerConfig({ PHAROS_LOG_WRITE_QUEUE_MB: "1.5" })).toThrow(
    'PHAROS_LOG_WRITE_QUEUE_MB must be a whole number from 1 to 65536, not "1.5"',
  );
});

it("reads the webhook settings: private addresses refused unless PHAROS_WEBHOOKS_ALLOW_PRIVATE=true", () => {
  expect(loadServerConfig({}).webhooks).toEqual({ allowPrivateAddresses: false, timeoutMs: 10_000 });
  const env = { PHAROS_WEBHOOKS_ALLOW_PRIVATE: "TRUE", PHAROS_WEBHOOK_TIMEOUT_MS: "2500" };
  expect(loadServerConfig(env).webhooks).toEqual({ allowPrivateAddresses: true, timeoutMs: 2500 });
  expect(loadServerConfig({ PHAROS_WEBHOOKS_ALLOW_PRIVATE: "false" }).webhooks.allowPrivateAddresses).toBe(false);
  expect(() => loadServerConfig({ PHAROS_WEBHOOKS_ALLOW_PRIVATE: "yes" })).toThrow(
    'PHAROS_WEBHOOKS_ALLOW_PRIVATE must be true or false, not "yes"',
  );
  expect(() => loadServerConfig({ PHAROS_WEBHOOK_TIMEOUT_MS: "999" })).toThrow(
    'PHAROS_WEBHOOK_TIMEOUT_MS must be a whole number from 1000 to 60000, not "999"',
  );
});
