/**
 * `pharos backup` end to end: a real server process writes traces over HTTP while the CLI process copies its
 * SQLite file; the copy passes SQLite's integrity check and, restored beside its secret key and served by
 * another server, holds every trace acknowledged before the backup began, whole.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { SECRET_KEY_FILE } from "../secrets/secret-key.ts";
import { keysIn, runCliProcess, type ServerProcess, startServer, tempDatabaseDir } from "../testing/processes.ts";

const files = tempDatabaseDir();
const elsewhere = mkdtempSync(join(tmpdir(), "pharos-backup-"));
const running = new Set<ServerProcess>();
afterAll(async () => {
  await Promise.all([...running].map((server) => server.stop("SIGKILL").catch(() => {})));
  files.dispose();
  rmSync(elsewhere, { recursive: true, force: true });
});

function start(env: Record<string, string>): ServerProcess {
  const server = startServer(env);
  running.add(server);
  server.exited.then(() => running.delete(server));
  return server;
}

const T0 = 1_732_190_400_000;
const WRITERS = 4;
const SPANS = 3;

async function call(url: string, key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${url}/v2${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body !== undefined && { "Content-Type": "application/json" }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

const traceBody = (projectId: string, referenceId: string) => ({
  projectId,
  trace: { name: "backed-up", status: "success", startedAt: T0, endedAt: T0 + 1000, referenceId },
  spans: Array.from({ length: SPANS }, (_, s) => ({
    name: `span-${s}`,
    status: "success",
    startedAt: T0 + s,
    endedAt: T0 + s + 10,
    content: { type: "Tool", input: JSON.stringify({ s, pad: "x".repeat(2000) }), output: "{}" },
  })),
});

/** Every trace of the project: referenceId → number of spans. */
async function tracesOf(url: string, key: string, projectId: string): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  let cursor: string | undefined;
  do {
    const page = await call(url, key, "POST", "/logs/traces", { projectId, limit: 200, ...(cursor && { cursor }) });
    expect(page.status).toBe(200);
    for (const trace of page.body.traces) found.set(trace.referenceId, trace.spanIds.length);
    cursor = page.body.pagination.nextCursor ?? undefined;
  } while (cursor);
  return found;
}

describe("pharos backup", () => {
  it("copies a SQLite database while a server writes to it: the copy is sound and holds every acknowledged trace", async () => {
    const databaseUrl = files.url("live.db");
    const server = start({ DATABASE_URL: databaseUrl });
    const url = await server.ready();
    const key = keysIn(server.stdout())[0] as string;
    const projectId = (await call(url, key, "GET", "/projects")).body.projects[0].id as string;

    const acknowledged: string[] = [];
    let writing = true;
    const writers = Array.from({ length: WRITERS }, async (_, w) => {
      for (let i = 0; writing; i++) {
        const referenceId = `w${w}-t${i}`;
        const reply = await call(url, key, "POST", "/logs/trace", traceBody(projectId, referenceId));
        expect(reply.status).toBe(200);
        acknowledged.push(referenceId);
      }
    });
    while (acknowledged.length < 100) await new Promise((resolve) => setTimeout(resolve, 10));

    const target = join(elsewhere, "pharos-copy.db");
    const before = [...acknowledged];
    const backup = await runCliProcess(["backup", target], { DATABASE_URL: databaseUrl });
    const during = acknowledged.length - before.length;
    writing = false;
    await Promise.all(writers);

    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stdout).toBe(`${target}\n`);
    expect(backup.stderr).toMatch(
      /^Backed up .*live\.db to .*pharos-copy\.db: [\d,]+ pages, [\d.]+ MB, a consistent copy as of /,
    );
    expect(backup.stderr).toContain(`Keep ${join(files.url("").slice("sqlite:".length), SECRET_KEY_FILE)} with it`);
    // The server went on acknowledging writes while the CLI ran.
    expect(during).toBeGreaterThan(0);

    const copy = new SQLite(target, { readonly: true });
    try {
      expect(copy.pragma("integrity_check", { simple: true })).toBe("ok");
    } finally {
      copy.close();
    }

    // Restore: the copy beside the key its credentials are sealed with, served by a server of its own.
    copyFileSync(join(files.url("").slice("sqlite:".length), SECRET_KEY_FILE), join(elsewhere, SECRET_KEY_FILE));
    const restored = start({ DATABASE_URL: `sqlite:${target}` });
    const restoredUrl = await restored.ready();
    const traces = await tracesOf(restoredUrl, key, projectId);
    for (const referenceId of before) expect(traces.get(referenceId), referenceId).toBe(SPANS);
    // Whatever else it holds is whole too: a trace is stored with its spans or not at all.
    for (const [referenceId, spans] of traces) expect(spans, referenceId).toBe(SPANS);
    expect(await restored.stop()).toEqual({ code: 0, signal: null });
    expect(await server.stop()).toEqual({ code: 0, signal: null });
  }, 60_000);

  it("refuses to replace a file without --force, and a PostgreSQL database (pointing to pg_dump)", async () => {
    const databaseUrl = files.url("small.db");
    const server = start({ DATABASE_URL: databaseUrl });
    await server.ready();
    const target = join(elsewhere, "existing.db");
    const first = await runCliProcess(["backup", target, "--json"], { DATABASE_URL: databaseUrl });
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ target, pages: expect.any(Number), bytes: expect.any(Number) });
    const copied = readFileSync(target);

    const refused = await runCliProcess(["backup", target], { DATABASE_URL: databaseUrl });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${target} exists; pass --force to replace it`);
    expect(readFileSync(target).equals(copied)).toBe(true);
    const forced = await runCliProcess(["backup", target, "--force"], { DATABASE_URL: databaseUrl });
    expect(forced.code, forced.stderr).toBe(0);

    const postgres = await runCliProcess(["backup", join(elsewhere, "pg.db")], {
      DATABASE_URL: "postgres://pharos@127.0.0.1:5432/pharos",
      PHAROS_SECRET_KEY: "a".repeat(64),
    });
    expect(postgres.code).toBe(1);
    expect(postgres.stderr).toContain("pg_dump --format=custom");
    expect(existsSync(join(elsewhere, "pg.db"))).toBe(false);

    const usage = await runCliProcess(["backup"], { DATABASE_URL: databaseUrl });
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("missing <file>");
    await server.stop();
  }, 60_000);
});
