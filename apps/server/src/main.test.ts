/**
 * The server process end to end: src/main.ts (run with tsx) on loopback with a temporary database, over real HTTP.
 * First start and restart, PHAROS_BOOTSTRAP_API_KEY, configuration errors, graceful shutdown, and first
 * starts racing on one database (SQLite always, PostgreSQL when PHAROS_TEST_DATABASE_URL is set).
 */
import { existsSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueKey } from "./auth/api-keys.ts";
import { REPO_ROOT } from "./config.ts";
import { createIdGenerator } from "./ids.ts";
import { bootstrapIfEmpty } from "./services/admin/bootstrap.ts";
import { adminContext } from "./services/admin/workspaces.ts";
import { EXIT_UNCLEAN } from "./shutdown.ts";
import { openPostgresStore } from "./store/postgres.ts";
import { postgresUrl } from "./testing/harness.ts";
import {
  freshPostgresSchema,
  KEY_PATTERN,
  keysIn,
  type ProcessOptions,
  type ServerProcess,
  startServer,
  tempDatabaseDir,
} from "./testing/processes.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const docsBuilt = existsSync(join(REPO_ROOT, "apps/docs/dist/index.html"));

const dbs = tempDatabaseDir();
const running = new Set<ServerProcess>();
afterAll(async () => {
  await Promise.all([...running].map((server) => server.stop("SIGKILL").catch(() => {})));
  dbs.dispose();
});

function start(env: Record<string, string>, options?: ProcessOptions): ServerProcess {
  const server = startServer(env, options);
  running.add(server);
  server.exited.then(() => running.delete(server));
  return server;
}

const get = (url: string, key?: string, headers: Record<string, string> = {}) =>
  fetch(url, { headers: { ...headers, ...(key && { Authorization: `Bearer ${key}` }) } });

const newPresetKey = () => issueKey(createIdGenerator(Date.now)("apiKey")).key;

/** Resolves once a fresh TCP connection to the URL's port is refused. */
const connectionRefused = (url: string) =>
  new Promise<string>((resolve) => {
    const socket = net.connect(Number(new URL(url).port), "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve("connected");
    });
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });

// Each case starts one or more server processes (a tsx start each): seconds apiece on a busy CI machine.
describe("server process", { timeout: 60_000 }, () => {
  it("first start prints one full key; the API, request ids, spec and docs answer; a restart prints none", async () => {
    const databaseUrl = dbs.url("first.db");
    const first = start({ DATABASE_URL: databaseUrl });
    const url = await first.ready();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const listening = first.logs().find((record) => record.url === url);
    expect(listening).toMatchObject({ docsUrl: `${url}/docs`, openapiUrl: `${url}/v2/openapi.json` });
    expect(listening?.msg).toContain(`${url}/docs`);

    const keys = keysIn(first.stdout());
    expect(keys).toHaveLength(1);
    const key = keys[0] as string;
    expect(first.stdout()).toContain("shown only this once");

    const projects = await get(`${url}/v2/projects`, key);
    expect(projects.status).toBe(200);
    expect(projects.headers.get("X-Request-Id")).toMatch(UUID);
    const body = (await projects.json()) as { projects: { title: string }[] };
    expect(body.projects.map((project) => project.title)).toEqual(["Default project"]);

    const requestId = "0b9d8c1e-3f4a-4b5c-8d6e-7f8091a2b3c4";
    const echoed = await get(`${url}/v2/projects`, key, { "X-Request-Id": requestId });
    expect(echoed.headers.get("X-Request-Id")).toBe(requestId);
    const accessLine = await first.waitForLog((record) => record.requestId === requestId && record.msg === "request");
    expect(accessLine).toMatchObject({ method: "GET", path: "/v2/projects", status: 200 });

    const unauthenticated = await get(`${url}/v2/projects`);
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get("X-Request-Id")).toMatch(UUID);

    const spec = await get(`${url}/v2/openapi.json`);
    expect(spec.status).toBe(200);
    expect(await spec.json()).toMatchObject({ openapi: expect.stringMatching(/^3\.1\./), info: { version: "2.0.0" } });

    const docs = await get(`${url}/docs`);
    if (docsBuilt) {
      expect(docs.status).toBe(200);
      expect(docs.headers.get("Content-Type")).toContain("text/html");
      expect(await docs.text()).toContain("Pharos API reference");
    } else {
      console.warn("apps/docs/dist/index.html is not built (pnpm docs:build): checking /docs answers 404 instead");
      expect(docs.status).toBe(404);
      expect(((await docs.json()) as { error: { message: string } }).error.message).toContain("pnpm docs:build");
    }

    expect(await first.stop()).toEqual({ code: 0, signal: null });

    const second = start({ DATABASE_URL: databaseUrl });
    const secondUrl = await second.ready();
    expect(second.stdout()).not.toMatch(KEY_PATTERN);
    expect(second.stdout()).not.toContain("First start");
    expect((await get(`${secondUrl}/v2/projects`, key)).status).toBe(200);
    expect(await second.stop()).toEqual({ code: 0, signal: null });
  });

  it("installs PHAROS_BOOTSTRAP_API_KEY on an empty database without printing it, and ignores it afterwards", async () => {
    const databaseUrl = dbs.url("preset.db");
    const preset = newPresetKey();
    const first = start({ DATABASE_URL: databaseUrl, PHAROS_BOOTSTRAP_API_KEY: preset });
    const url = await first.ready();
    expect(first.stdout()).not.toMatch(KEY_PATTERN);
    expect(first.logs().some((record) => String(record.msg).includes("PHAROS_BOOTSTRAP_API_KEY"))).toBe(true);
    expect((await get(`${url}/v2/projects`, preset)).status).toBe(200);
    expect(await first.stop()).toEqual({ code: 0, signal: null });

    const other = newPresetKey();
    const second = start({ DATABASE_URL: databaseUrl, PHAROS_BOOTSTRAP_API_KEY: other });
    const secondUrl = await second.ready();
    await second.waitForLog((record) => String(record.msg).startsWith("PHAROS_BOOTSTRAP_API_KEY ignored"));
    expect((await get(`${secondUrl}/v2/projects`, other)).status).toBe(401);
    expect((await get(`${secondUrl}/v2/projects`, preset)).status).toBe(200);
    expect(await second.stop()).toEqual({ code: 0, signal: null });
  });

  it("exits 1 with a message, not a stack trace, for invalid configuration, an unreachable database or a busy port", async () => {
    const busy = net.createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    const busyPort = String((busy.address() as net.AddressInfo).port);
    try {
      const invalid = start({
        PORT: "eighty",
        LOG_LEVEL: "loud",
        DATABASE_URL: "mysql://root:hunter2@localhost/pharos",
        PHAROS_BOOTSTRAP_API_KEY: "phk_not-a-key",
      });
      const unreachable = start({ DATABASE_URL: "postgres://pharos:hunter2@127.0.0.1:1/pharos" });
      const portTaken = start({ DATABASE_URL: dbs.url("busy.db"), PORT: busyPort });
      const exits = await Promise.all([invalid.exited, unreachable.exited, portTaken.exited]);
      expect(exits.map((exit) => exit.code)).toEqual([1, 1, 1]);

      const problems = invalid.stderr();
      expect(problems).toContain("Invalid configuration");
      expect(problems).toContain('PORT must be a whole number from 0 to 65535 (0 picks a free port), not "eighty"');
      expect(problems).toContain('LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, not "loud"');
      expect(problems).toContain("DATABASE_URL must be sqlite:<file path> or postgres://");
      expect(problems).toContain("PHAROS_BOOTSTRAP_API_KEY is not a Pharos API key");
      expect(unreachable.stderr()).toContain("cannot open the database postgres://pharos:***@127.0.0.1:1/pharos");
      expect(portTaken.stderr()).toContain(`cannot listen on 127.0.0.1:${busyPort}`);
      for (const server of [invalid, unreachable, portTaken]) {
        expect(server.stderr()).not.toMatch(/\n\s+at /);
        expect(server.stderr()).not.toContain("hunter2");
      }
    } finally {
      busy.close();
    }
  });

  it("on SIGTERM refuses new connections, finishes the request in flight, and exits 0", async () => {
    const server = start({ DATABASE_URL: dbs.url("shutdown.db") });
    const url = await server.ready();
    const key = keysIn(server.stdout())[0] as string;

    // A request the server has accepted but cannot answer yet: its body is still being uploaded.
    // `Expect: 100-continue` makes Node's server confirm it received the request before the body is sent.
    const head = '{"title":"Slow upload"';
    const tail = `${" ".repeat(256 * 1024)}}`;
    const request = http.request(`${url}/v2/projects`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${key}`,
        "Content-Type": "application/json",
        "Content-Length": Buffer.byteLength(head) + Buffer.byteLength(tail),
        Expect: "100-continue",
      },
    });
    const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
      request.once("response", (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          body += chunk;
        });
        res.once("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      request.once("error", reject);
    });
    const accepted = new Promise<void>((resolve) => request.once("continue", resolve));
    request.flushHeaders();
    await accepted;
    request.write(head);

    server.child.kill("SIGTERM");
    await server.waitForLog((record) => record.signal === "SIGTERM");
    expect(await connectionRefused(url)).toBe("ECONNREFUSED");
    expect(server.child.exitCode).toBeNull();

    const answered = Date.now();
    request.end(tail);
    const reply = await response;
    expect(reply.status).toBe(201);
    expect(JSON.parse(reply.body)).toMatchObject({ title: "Slow upload" });

    expect(await server.stop()).toEqual({ code: 0, signal: null });
    // Exited on its own once the answered connection fell idle, well before the 10 s grace period.
    expect(Date.now() - answered).toBeLessThan(5_000);
    expect(server.logs().some((record) => record.msg === "Stopped")).toBe(true);
  });
});

/**
 * Opens a raw connection, sends `head`, then `drip` every 200 ms until the server ends the connection; resolves
 * with what the server sent. Fails after `boundMs`.
 */
function trickle(url: string, head: string, drip: string, boundMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(new URL(url).port), "127.0.0.1");
    let received = "";
    const dripping = setInterval(() => socket.write(drip), 200);
    const bound = setTimeout(() => {
      finish();
      reject(new Error(`the server still held the connection after ${boundMs} ms; it sent: ${received}`));
    }, boundMs);
    const finish = () => {
      clearInterval(dripping);
      clearTimeout(bound);
      socket.destroy();
    };
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      received += chunk;
    });
    // A reset (the server closing while bytes still arrive) ends the connection as well as a FIN does.
    socket.on("error", () => {});
    socket.once("close", () => {
      finish();
      resolve(received);
    });
    socket.write(head);
  });
}

describe("slow clients", () => {
  let server: ServerProcess;
  let url: string;
  let key: string;
  beforeAll(async () => {
    server = start({
      DATABASE_URL: dbs.url("slow-clients.db"),
      PHAROS_HEADERS_TIMEOUT_MS: "1000",
      PHAROS_REQUEST_TIMEOUT_MS: "2000",
      PHAROS_KEEP_ALIVE_TIMEOUT_MS: "1000",
    });
    url = await server.ready();
    key = keysIn(server.stdout())[0] as string;
  });
  afterAll(async () => {
    await server?.stop();
  });
  // The request timeout, the second between Node's checks of its connections, and room for a loaded machine.
  const BOUND_MS = 2000 + 1000 + 5000;

  it("cuts off a client that trickles its headers, answering 408, while other requests are served", async () => {
    const cut = trickle(url, "GET /v2/projects HTTP/1.1\r\nHost: pharos\r\n", "X-Slow: a\r\n", BOUND_MS);
    for (let i = 0; i < 5; i++) {
      expect((await get(`${url}/v2/projects`, key)).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await cut).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect((await get(`${url}/v2/projects`, key)).status).toBe(200);
  });

  it("cuts off a client that trickles its body, answering 408, while other requests are served", async () => {
    const head = [
      "POST /v2/projects HTTP/1.1",
      "Host: pharos",
      `Authorization: Bearer ${key}`,
      "Content-Type: application/json",
      "Content-Length: 100000",
      "",
      '{"title":"',
    ].join("\r\n");
    const cut = trickle(url, head, "a", BOUND_MS);
    for (let i = 0; i < 5; i++) {
      expect((await get(`${url}/v2/projects`, key)).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await cut).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect((await get(`${url}/v2/projects`, key)).status).toBe(200);
  });

  it("closes a keep-alive connection idle for PHAROS_KEEP_ALIVE_TIMEOUT_MS (Node's default would keep it 5 s)", async () => {
    const socket = net.connect(Number(new URL(url).port), "127.0.0.1");
    socket.setEncoding("utf8");
    let received = "";
    socket.on("data", (chunk: string) => {
      received += chunk;
    });
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    socket.write("GET /v2/openapi.json HTTP/1.1\r\nHost: pharos\r\nConnection: keep-alive\r\n\r\n");
    // Bounded below Node's default of 5 s.
    const bound = new Promise<string>((resolve) => setTimeout(() => resolve("still open"), 4000).unref());
    expect(await Promise.race([closed.then(() => "closed"), bound])).toBe("closed");
    expect(received).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
  });
});

describe("overload", () => {
  const FLOOD = 400;
  const attributes = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`flood.attribute.${i}`, `value ${i}`]));
  it("refuses log writes beyond PHAROS_LOG_WRITE_QUEUE_WRITES with 503 and Retry-After; stores every accepted one", async () => {
    const server = start({ DATABASE_URL: dbs.url("overload.db"), PHAROS_LOG_WRITE_QUEUE_WRITES: "1" });
    const url = await server.ready();
    const key = keysIn(server.stdout())[0] as string;
    const projectId = ((await (await get(`${url}/v2/projects`, key)).json()) as any).projects[0].id;
    const write = (i: number) =>
      fetch(`${url}/v2/logs/trace`, {
        method: "POST",
        headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
        body: JSON.stringify({
          projectId,
          trace: {
            name: "flood",
            status: "success",
            startedAt: 1_732_190_400_000,
            referenceId: `flood-${i}`,
            attributes,
          },
        }),
      });
    // Enough writes, each with index rows to store, that the bound is reached however fast this machine commits.
    const replies = await Promise.all(Array.from({ length: FLOOD }, (_, i) => write(i)));
    const refused = replies.filter((reply) => reply.status === 503);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((reply) => reply.headers.get("Retry-After") === "1")).toBe(true);
    const accepted = replies.flatMap((reply, i) => (reply.status === 200 ? [`flood-${i}`] : []));
    expect(accepted.length + refused.length).toBe(FLOOD);
    for (const referenceId of accepted) {
      const found = await fetch(`${url}/v2/logs/traces`, {
        method: "POST",
        headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
        body: JSON.stringify({ projectId, referenceId }),
      });
      expect(((await found.json()) as any).traces, referenceId).toHaveLength(1);
    }
    expect(await server.stop()).toEqual({ code: 0, signal: null });
  });
});

describe("shutdown always ends", () => {
  const GRACE_MS = 2000;
  /** The grace period, the second the last log lines get, and room for a loaded machine. */
  const EXIT_BOUND_MS = GRACE_MS + 1000 + 5000;

  it(`exits ${EXIT_UNCLEAN} when its stdout is a pipe nobody reads, instead of waiting for a reader`, async () => {
    const server = start(
      { DATABASE_URL: dbs.url("stalled-stdout.db"), PHAROS_SHUTDOWN_GRACE_MS: String(GRACE_MS) },
      { stallableStdout: true },
    );
    const url = await server.ready();
    const key = keysIn(server.stdout())[0] as string;
    server.stallStdout();
    // It goes on answering while its access log lines wait for the pipe.
    for (let i = 0; i < 20; i++) expect((await get(`${url}/v2/projects`, key)).status).toBe(200);

    expect(await server.stop("SIGTERM", EXIT_BOUND_MS)).toEqual({ code: EXIT_UNCLEAN, signal: null });
  });

  it(`exits ${EXIT_UNCLEAN} at the end of the grace period with a request still in flight, saying what was pending`, async () => {
    const server = start({ DATABASE_URL: dbs.url("stuck-request.db"), PHAROS_SHUTDOWN_GRACE_MS: String(GRACE_MS) });
    const url = await server.ready();
    const key = keysIn(server.stdout())[0] as string;
    // An upload that never ends: the server has its headers (it answered 100 Continue) and waits for the body.
    const request = http.request(`${url}/v2/projects`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${key}`,
        "Content-Type": "application/json",
        "Content-Length": 1000,
        Expect: "100-continue",
      },
    });
    const cut = new Promise<string>((resolve) =>
      request.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message)),
    );
    const accepted = new Promise<void>((resolve) => request.once("continue", resolve));
    request.flushHeaders();
    await accepted;
    request.write('{"title":');

    expect(await server.stop("SIGTERM", EXIT_BOUND_MS)).toEqual({ code: EXIT_UNCLEAN, signal: null });
    expect(await cut).toBe("ECONNRESET");
    const warning = server.logs().find((record) => record.pending !== undefined);
    expect(warning?.pending).toEqual(["requests in flight"]);
    expect(server.logs().some((record) => record.msg === "Stopped")).toBe(false);
  });
});

describe.each([
  ["sqlite", async () => ({ url: dbs.url("race.db"), dispose: async () => {} })],
  ...(postgresUrl ? [["postgres", () => freshPostgresSchema(postgresUrl as string)] as const] : []),
] as const)("first starts racing on one database [%s]", (_, open) => {
  it("two processes starting at once create exactly one workspace and print one key", async () => {
    const database = await open();
    try {
      const servers = [start({ DATABASE_URL: database.url }), start({ DATABASE_URL: database.url })];
      const urls = await Promise.all(servers.map((server) => server.ready(40_000)));
      const printed = servers.flatMap((server) => keysIn(server.stdout()));
      expect(printed).toHaveLength(1);
      const key = printed[0] as string;
      for (const url of urls) {
        const reply = await get(`${url}/v2/projects`, key);
        expect(reply.status).toBe(200);
        expect(((await reply.json()) as { projects: unknown[] }).projects).toHaveLength(1);
      }
      expect(await Promise.all(servers.map((server) => server.stop()))).toEqual([
        { code: 0, signal: null },
        { code: 0, signal: null },
      ]);
    } finally {
      await database.dispose();
    }
  }, 60_000);
});

describe.runIf(postgresUrl)("bootstrapIfEmpty under contention [postgres]", () => {
  it("five concurrent callers on separate connections create one workspace", async () => {
    const database = await freshPostgresSchema(postgresUrl as string);
    const stores = Array.from({ length: 5 }, () => openPostgresStore(database.url));
    try {
      await (stores[0] as (typeof stores)[number]).migrate();
      const results = await Promise.all(stores.map((store) => bootstrapIfEmpty(adminContext(store))));
      expect(results.filter((result) => result.created)).toHaveLength(1);
      const count = await (stores[0] as (typeof stores)[number]).db
        .selectFrom("workspaces")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow();
      expect(Number(count.n)).toBe(1);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
      await database.dispose();
    }
  });
});
