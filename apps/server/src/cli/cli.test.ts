/**
 * `pharos` end to end: real CLI processes (src/cli/main.ts) on the database of a running server
 * (src/main.ts), and the keys they create used over real HTTP.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CliResult,
  KEY_PATTERN,
  runCliProcess,
  type ServerProcess,
  startServer,
  tempDatabaseDir,
} from "../testing/processes.ts";
import { runCli } from "./cli.ts";

const dbs = tempDatabaseDir();
const databaseUrl = dbs.url();
let server: ServerProcess;
let url: string;

beforeAll(async () => {
  server = startServer({ DATABASE_URL: databaseUrl });
  url = await server.ready();
});
afterAll(async () => {
  await server?.stop().catch(() => server.stop("SIGKILL"));
  dbs.dispose();
});

const pharos = (...args: string[]) => runCliProcess(args, { DATABASE_URL: databaseUrl });
async function runInProcess(args: string[]): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(args, {
    env: { DATABASE_URL: databaseUrl },
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
  });
  return { code, stdout, stderr };
}

const json = (result: CliResult) => {
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout);
};

const call = async (method: string, path: string, key: string, body?: unknown) => {
  const response = await fetch(`${url}/v2${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body !== undefined && { "Content-Type": "application/json" }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as any };
};

// Each case runs several CLI processes one after another (a tsx start each): seconds apiece on a busy CI machine.
describe("pharos CLI", { timeout: 60_000 }, () => {
  it("creates a workspace and keys; a restricted read-only key reads its project only; revoke makes it 401", async () => {
    const created = json(await pharos("workspaces", "create", "--name", "Acme", "--json"));
    expect(created.workspace).toMatchObject({ id: expect.stringMatching(/^workspace_/), name: "Acme" });
    expect(created.project).toMatchObject({ id: expect.stringMatching(/^project_/), title: "Default project" });
    const workspaceId: string = created.workspace.id;
    const firstProject: string = created.project.id;

    // Without --json the key alone is on stdout, so a script can capture it; the commentary is on stderr.
    const fullKeyRun = await pharos("keys", "create", "--workspace", workspaceId);
    expect(fullKeyRun.code).toBe(0);
    expect(fullKeyRun.stdout.trim()).toMatch(new RegExp(`^${KEY_PATTERN.source}$`));
    expect(fullKeyRun.stderr).toContain("shown only this once");
    const fullKey = fullKeyRun.stdout.trim();

    const second = await call("POST", "/projects", fullKey, { title: "Second" });
    expect(second.status).toBe(201);
    const secondProject: string = second.body.id;

    const reader = json(
      await pharos(
        "keys",
        "create",
        "--workspace",
        workspaceId,
        "--role",
        "read-only",
        "--project",
        firstProject,
        "--name",
        "reader",
        "--json",
      ),
    );
    expect(reader).toMatchObject({ role: "read-only", projectIds: [firstProject], name: "reader", workspaceId });
    const readerKey: string = reader.key;
    // The secret is everything after the key id; it may itself contain "_" (base64url).
    const readerSecret = readerKey.split("_").slice(2).join("_");

    const listed = json(await pharos("keys", "list", "--workspace", workspaceId, "--json"));
    expect(listed.apiKeys.map((key: { id: string }) => key.id)).toContain(reader.id);
    const entry = listed.apiKeys.find((key: { id: string }) => key.id === reader.id);
    expect(entry).toEqual({
      id: reader.id,
      workspaceId,
      name: "reader",
      role: "read-only",
      projectIds: [firstProject],
      createdAt: expect.any(Number),
      revokedAt: null,
      expiresAt: null,
      lastUsedAt: null,
    });
    const table = await pharos("keys", "list");
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^ID\s+WORKSPACE\s+ROLE\s+PROJECTS\s+STATUS\s+CREATED\s+LAST USED\s+NAME\n/);
    expect(table.stdout).toContain(reader.id);
    for (const output of [JSON.stringify(listed), table.stdout]) {
      expect(output).not.toMatch(KEY_PATTERN);
      expect(output).not.toContain(readerSecret);
      expect(output).not.toContain("secretHash");
    }

    const visible = await call("GET", "/projects", readerKey);
    expect(visible.status).toBe(200);
    // The server marks the key used, without making the request wait for it.
    const lastUsed = async () =>
      json(await pharos("keys", "list", "--workspace", workspaceId, "--json")).apiKeys.find(
        (key: { id: string }) => key.id === reader.id,
      ).lastUsedAt;
    for (let attempt = 0; attempt < 50 && (await lastUsed()) === null; attempt++) await sleep(100);
    expect(await lastUsed()).toEqual(expect.any(Number));
    expect(visible.body.projects.map((project: { id: string }) => project.id)).toEqual([firstProject]);
    expect((await call("GET", `/projects/${firstProject}`, readerKey)).status).toBe(200);
    const otherProject = await call("GET", `/projects/${secondProject}`, readerKey);
    expect(otherProject.status).toBe(403);
    expect(otherProject.body.error.code).toBe("FORBIDDEN");
    const write = await call("POST", `/projects/${firstProject}/deployment-environments`, readerKey, { name: "prod" });
    expect(write.status).toBe(403);
    expect(write.body.error.code).toBe("FORBIDDEN");

    const revoked = await pharos("keys", "revoke", reader.id);
    expect(revoked).toMatchObject({ code: 0, stdout: `Revoked API key ${reader.id}.\n` });
    const refused = await call("GET", "/projects", readerKey);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe("AUTHENTICATION_REQUIRED");
    expect((await call("GET", "/projects", fullKey)).status).toBe(200);

    const again = await pharos("keys", "revoke", readerKey);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("already revoked");
    const after = json(await pharos("keys", "list", "--workspace", workspaceId, "--json"));
    expect(after.apiKeys.find((key: { id: string }) => key.id === reader.id).revokedAt).toEqual(expect.any(Number));
  });

  it("creates a key that expires: it works until then, and the list says when", async () => {
    const workspaceId: string = json(await pharos("workspaces", "create", "--name", "Expiring", "--json")).workspace.id;
    const before = Date.now();
    const created = json(await pharos("keys", "create", "--workspace", workspaceId, "--expires", "30d", "--json"));
    expect(created.expiresAt).toBeGreaterThanOrEqual(before + 30 * 86_400_000);
    expect(created.expiresAt).toBeLessThanOrEqual(Date.now() + 30 * 86_400_000);
    expect((await call("GET", "/projects", created.key)).status).toBe(200);
    const at = json(
      await pharos("keys", "create", "--workspace", workspaceId, "--expires", "2100-01-31T12:00:00Z", "--json"),
    );
    expect(at.expiresAt).toBe(Date.parse("2100-01-31T12:00:00Z"));
    const table = await pharos("keys", "list", "--workspace", workspaceId);
    expect(table.stdout).toContain("expires 2100-01-31T12:00:00.000Z");
  });

  it("rejects bad arguments (exit 2) and unknown ids (exit 1) with a message, and prints help (exit 0)", async () => {
    const workspace = json(await pharos("workspaces", "create", "--name", "Errors", "--json"));
    const other = json(await pharos("workspaces", "create", "--name", "Other", "--json"));
    const workspaceId: string = workspace.workspace.id;

    // The whole matrix through runCli in this process (the code the entry point runs), on the same database.
    const cases: [string[], number, string][] = [
      [["workspaces", "create"], 2, "--name <name> is required"],
      [["workspaces", "create", "--name", "   "], 2, "--name <name> is required"],
      [["workspaces", "create", "--name", "x".repeat(101)], 2, "--name is longer than 100 characters"],
      [["keys", "create"], 2, "--workspace <id> is required"],
      [["keys", "create", "--workspace", workspaceId, "--role", "admin"], 2, "--role must be one of full, read-only"],
      [["keys", "create", "--workspace", workspaceId, "--colour", "red"], 2, "Unknown option '--colour'"],
      [["keys", "create", "--workspace"], 2, "argument missing"],
      [["keys", "create", "--workspace", workspaceId, "--expires", "soon"], 2, "--expires must be a time"],
      [["keys", "create", "--workspace", workspaceId, "--expires", "2020-01-01"], 2, "is not in the future"],
      [["keys", "revoke"], 2, "missing <keyId>"],
      [["keys", "revoke", "a", "b"], 2, 'unexpected argument "b"'],
      [["keys"], 2, "pharos keys create"],
      [["frobnicate"], 2, 'unknown command "frobnicate"'],
      [["constructor"], 2, 'unknown command "constructor"'],
      [["toString"], 2, 'unknown command "toString"'],
      [[], 2, "Usage: pharos <command>"],
      [["keys", "create", "--workspace", "workspace_01JD8Q2A1B2C3D4E5F6G7H8J9K"], 1, "no workspace workspace_01JD8Q2A"],
      [
        ["keys", "create", "--workspace", workspaceId, "--project", other.project.id],
        1,
        `no project ${other.project.id} in workspace ${workspaceId}`,
      ],
      [["keys", "list", "--workspace", "workspace_nope"], 1, "no workspace workspace_nope"],
      [["keys", "revoke", "apikey_01JD8Q2A1B2C3D4E5F6G7H8J9K"], 1, "no API key apikey_01JD8Q2A1B2C3D4E5F6G7H8J9K"],
    ];
    for (const [args, code, message] of cases) {
      const result = await runInProcess(args);
      expect({ args, code: result.code }).toEqual({ args, code });
      expect(result.stderr).toContain(message);
      expect(result.stdout).toBe("");
    }
    // No key was created by any of them.
    const keys = json(await pharos("keys", "list", "--workspace", workspaceId, "--json"));
    expect(keys.apiKeys).toEqual([]);

    const [help, keysHelp, createHelp, usage, unknown, badDatabase, generated] = await Promise.all([
      pharos("--help"),
      pharos("keys", "--help"),
      pharos("keys", "create", "--help"),
      pharos("keys", "create", "--workspace", workspaceId, "--role", "admin"),
      pharos("keys", "revoke", "apikey_01JD8Q2A1B2C3D4E5F6G7H8J9K"),
      runCliProcess(["keys", "list"], { DATABASE_URL: "mysql://localhost/pharos" }),
      runCliProcess(["keys", "generate"], { DATABASE_URL: "mysql://unused" }),
    ]);
    expect(help.code).toBe(0);
    for (const command of ["workspaces create", "keys create", "keys list", "keys revoke", "keys generate"]) {
      expect(help.stdout).toContain(command);
    }
    expect(keysHelp).toMatchObject({ code: 0, stdout: expect.stringContaining("pharos keys revoke <keyId>") });
    expect(createHelp).toMatchObject({ code: 0, stdout: expect.stringContaining("--role <role>") });
    expect(usage).toMatchObject({ code: 2, stdout: "", stderr: expect.stringContaining("--role must be one of") });
    expect(unknown).toMatchObject({ code: 1, stdout: "", stderr: expect.stringContaining("no API key") });
    expect(badDatabase.code).toBe(1);
    expect(badDatabase.stderr).toContain("DATABASE_URL must be sqlite:<file path> or postgres://");
    for (const result of [usage, unknown, badDatabase]) expect(result.stderr).not.toMatch(/\n\s+at /);
    // `keys generate` needs no database: its key is a valid PHAROS_BOOTSTRAP_API_KEY.
    expect(generated.code).toBe(0);
    expect(generated.stdout.trim()).toMatch(new RegExp(`^${KEY_PATTERN.source}$`));
  });
});
