/**
 * `pnpm pharos <command>`: workspaces and API keys of the database DATABASE_URL names (as the server),
 * online backups of a SQLite database, and `eval run`, a CI gate that talks to a server over HTTP (eval-run.ts).
 * The result goes to stdout (an id, a key, a table, or JSON with --json) and commentary to stderr, so
 * `KEY=$(pnpm -s pharos keys create --workspace …)` captures just the key. Exit codes: 0 done, 1 failed
 * (unknown id, database error), 2 bad arguments.
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { type ParseArgsConfig, parseArgs } from "node:util";
import { issueKey, parseKey } from "../auth/api-keys.ts";
import { ROLES, type Role } from "../auth/roles.ts";
import { ConfigError, describeError, REPO_ROOT, redactDatabaseUrl, resolveDatabaseUrl } from "../config.ts";
import { createIdGenerator } from "../ids.ts";
import { SECRET_KEY_FILE } from "../secrets/secret-key.ts";
import { BOOTSTRAP_PROJECT_TITLE } from "../services/admin/bootstrap.ts";
import { getApiKey, getWorkspace, projectIdsInWorkspace } from "../services/admin/lookups.ts";
import {
  type AdminContext,
  adminContext,
  createApiKey,
  createProjectForWorkspace,
  createWorkspace,
  listApiKeys,
  revokeApiKey,
} from "../services/admin/workspaces.ts";
import { openStore } from "../store/open-store.ts";
import { backupSqlite, type SqliteBackup } from "../store/sqlite-backup.ts";
import type { Store } from "../store/store.ts";
import { CommandError, UsageError } from "./cli-errors.ts";
import { EVAL_RUN_COMMAND } from "./eval-run.ts";

export interface CliIo {
  env: Record<string, string | undefined>;
  stdout(text: string): void;
  stderr(text: string): void;
  /** Whether stderr is a terminal: progress is drawn only there. */
  interactive?: boolean;
}

const MAX_NAME_LENGTH = 100;
const DEFAULT_KEY_NAME = "CLI key";

export type Options = NonNullable<ParseArgsConfig["options"]>;
export type Values = Record<string, string | boolean | string[] | undefined>;

export interface Command {
  synopsis: string;
  summary: string;
  /** Option lines of the command's help. */
  details?: string[];
  options: Options;
  /** Names of the positional arguments, all required. */
  positionals?: string[];
  run?(run: { values: Values; positionals: string[]; admin: AdminContext; io: CliIo; json: boolean }): Promise<void>;
  /** Instead of `run`, for a command that does not work through the store (it opens what it needs, if anything). */
  runAlone?: (run: { values: Values; positionals: string[]; io: CliIo; json: boolean }) => void | Promise<void>;
}

const COMMANDS: Record<string, Command> = {
  "workspaces create": {
    synopsis: "workspaces create --name <name>",
    summary: `Create a workspace with a project "${BOOTSTRAP_PROJECT_TITLE}"; prints the workspace id`,
    options: { name: { type: "string" } },
    async run({ values, admin, io, json }) {
      const name = requiredName(values.name, "--name");
      const { workspace, project } = await admin.store.transaction(admin.db, async (trx) => {
        const tx = { ...admin, db: trx };
        const created = await createWorkspace(tx, name);
        return {
          workspace: created,
          project: await createProjectForWorkspace(tx, created.id, BOOTSTRAP_PROJECT_TITLE),
        };
      });
      if (json) {
        const output = {
          workspace: { id: workspace.id, name: workspace.name, createdAt: workspace.createdAt },
          project: { id: project.id, title: project.title },
        };
        return io.stdout(`${JSON.stringify(output)}\n`);
      }
      io.stderr(`Created workspace "${workspace.name}" with its project "${project.title}" (${project.id}).\n`);
      io.stdout(`${workspace.id}\n`);
    },
  },

  "keys create": {
    synopsis:
      "keys create --workspace <id> [--role full|read-only|ingest-only] [--project <id> ...] [--name <name>] [--expires <when>]",
    summary: "Create an API key; prints the key, which is shown only this once",
    details: [
      "--workspace <id>   the key's workspace (required)",
      "--role <role>      full (default), read-only, or ingest-only (log writes and deployment reads)",
      "--project <id>     restrict the key to this project of the workspace; repeat for several (default: all)",
      `--name <name>      a label for the key (default "${DEFAULT_KEY_NAME}")`,
      "--expires <when>   refuse the key (401) from then on: a time (2027-01-31, 2027-01-31T12:00:00Z) or a",
      "                   duration from now (90d, 12h); default: never",
    ],
    options: {
      workspace: { type: "string" },
      role: { type: "string" },
      project: { type: "string", multiple: true },
      name: { type: "string" },
      expires: { type: "string" },
    },
    async run({ values, admin, io, json }) {
      const workspaceId = values.workspace as string | undefined;
      if (!workspaceId) throw new UsageError("--workspace <id> is required");
      const role = (values.role ?? "full") as Role;
      if (!ROLES.includes(role)) throw new UsageError(`--role must be one of ${ROLES.join(", ")}, not "${role}"`);
      const name = values.name === undefined ? DEFAULT_KEY_NAME : requiredName(values.name, "--name");
      const projectIds = [...new Set((values.project as string[] | undefined) ?? [])];
      const expiresAt = values.expires === undefined ? null : expiryOf(values.expires as string, admin.now());

      if (!(await getWorkspace(admin, workspaceId))) throw new CommandError(`no workspace ${workspaceId}`);
      const found = await projectIdsInWorkspace(admin, workspaceId, projectIds);
      const unknown = projectIds.filter((id) => !found.includes(id));
      if (unknown.length > 0) throw new CommandError(`no project ${unknown.join(", ")} in workspace ${workspaceId}`);

      const restriction = projectIds.length > 0 ? projectIds : null;
      const created = await createApiKey(admin, { workspaceId, name, role, projectIds: restriction, expiresAt });
      if (json) {
        const output = {
          id: created.id,
          key: created.key,
          workspaceId,
          name,
          role,
          projectIds: restriction,
          expiresAt,
        };
        return io.stdout(`${JSON.stringify(output)}\n`);
      }
      const scope = restriction ? `projects ${restriction.join(", ")}` : "all projects";
      const expiry = expiresAt === null ? "" : `, expires ${iso(expiresAt)}`;
      io.stderr(
        `Created API key ${created.id} "${name}" (role ${role}, ${scope}${expiry}) in workspace ${workspaceId}.\n` +
          "The key is shown only this once; store it now:\n",
      );
      io.stdout(`${created.key}\n`);
    },
  },

  "keys list": {
    synopsis: "keys list [--workspace <id>]",
    summary: "List API keys (never their secrets), oldest first",
    options: { workspace: { type: "string" } },
    async run({ values, admin, io, json }) {
      const workspaceId = values.workspace as string | undefined;
      if (workspaceId !== undefined && !(await getWorkspace(admin, workspaceId))) {
        throw new CommandError(`no workspace ${workspaceId}`);
      }
      const keys = (await listApiKeys(admin, workspaceId)).map((key) => ({
        ...key,
        projectIds: key.projectIds === null ? null : (JSON.parse(key.projectIds) as string[]),
      }));
      if (json) return io.stdout(`${JSON.stringify({ apiKeys: keys })}\n`);
      if (keys.length === 0) return io.stderr("No API keys.\n");
      const now = admin.now();
      const status = (key: (typeof keys)[number]) => {
        if (key.revokedAt !== null) return `revoked ${iso(key.revokedAt)}`;
        if (key.expiresAt === null) return "active";
        return `${key.expiresAt <= now ? "expired" : "expires"} ${iso(key.expiresAt)}`;
      };
      const rows = keys.map((key) => [
        key.id,
        key.workspaceId,
        key.role,
        key.projectIds === null ? "all" : key.projectIds.join(","),
        status(key),
        iso(key.createdAt),
        key.lastUsedAt === null ? "never" : iso(key.lastUsedAt),
        key.name,
      ]);
      io.stdout(table([["ID", "WORKSPACE", "ROLE", "PROJECTS", "STATUS", "CREATED", "LAST USED", "NAME"], ...rows]));
    },
  },

  "keys revoke": {
    synopsis: "keys revoke <keyId>",
    summary: "Revoke an API key (its id, apikey_…, or the key itself): requests with it get 401 from now on",
    options: {},
    positionals: ["keyId"],
    async run({ positionals, admin, io, json }) {
      const given = positionals[0] as string;
      const keyId = parseKey(given)?.id ?? given;
      const key = await getApiKey(admin, keyId);
      if (!key) throw new CommandError(`no API key ${keyId}`);
      const revoked = await revokeApiKey(admin, keyId);
      const revokedAt = revoked ? ((await getApiKey(admin, keyId))?.revokedAt ?? null) : key.revokedAt;
      if (json) return io.stdout(`${JSON.stringify({ id: keyId, revokedAt, alreadyRevoked: !revoked })}\n`);
      io.stdout(
        revoked
          ? `Revoked API key ${keyId}.\n`
          : `API key ${keyId} was already revoked (${iso(revokedAt as number)}).\n`,
      );
    },
  },

  "keys generate": {
    synopsis: "keys generate",
    summary: "Print a new random key without storing it (a value for PHAROS_BOOTSTRAP_API_KEY)",
    options: {},
    runAlone({ io, json }) {
      const { id, key } = issueKey(createIdGenerator(Date.now)("apiKey"));
      io.stdout(json ? `${JSON.stringify({ id, key })}\n` : `${key}\n`);
    },
  },

  backup: {
    synopsis: "backup <file> [--force]",
    summary: "Copy the SQLite database to <file>, consistently, while servers write to it; prints the file",
    details: [
      "<file>             a relative path is taken from the repository root, as DATABASE_URL's",
      "--force            replace <file> when it exists",
      "With PostgreSQL, use pg_dump and pg_restore instead (see README, Backups).",
    ],
    options: { force: { type: "boolean" } },
    positionals: ["file"],
    async runAlone({ values, positionals, io, json }) {
      const databaseUrl = resolveDatabaseUrl(io.env.DATABASE_URL?.trim() || undefined);
      if (!databaseUrl.startsWith("sqlite:")) {
        throw new CommandError(
          "backs up SQLite databases; with PostgreSQL use its own tools: " +
            'pg_dump --format=custom --file=pharos.dump "$DATABASE_URL" (restore with pg_restore, see README)',
        );
      }
      const source = databaseUrl.slice("sqlite:".length);
      if (source === ":memory:") throw new CommandError("an in-memory database has nothing to back up");
      // As DATABASE_URL's path: `pnpm pharos` runs in apps/server, whatever directory it was typed in.
      const target = resolve(REPO_ROOT, positionals[0] as string);
      if (target === resolve(source)) throw new UsageError("<file> is the database itself");
      if (existsSync(target) && values.force !== true) {
        throw new CommandError(`${target} exists; pass --force to replace it`);
      }
      let copy: SqliteBackup;
      try {
        copy = await backupSqlite(source, target);
      } catch (error) {
        throw new CommandError(`cannot back up ${source} to ${target}: ${describeError(error)}`);
      }
      if (json) return io.stdout(`${JSON.stringify({ source, target, ...copy })}\n`);
      const megabytes = (copy.bytes / (1024 * 1024)).toFixed(1);
      io.stderr(
        `Backed up ${source} to ${target}: ${copy.pages.toLocaleString("en")} pages, ${megabytes} MB, ` +
          `a consistent copy as of ${iso(copy.at)}.\n`,
      );
      const key = join(dirname(source), SECRET_KEY_FILE);
      if (!io.env.PHAROS_SECRET_KEY?.trim() && existsSync(key)) {
        io.stderr(`Keep ${key} with it: provider credentials in the copy are encrypted with that key.\n`);
      }
      io.stdout(`${target}\n`);
    },
  },

  "eval run": EVAL_RUN_COMMAND,
};

const COMMON_OPTIONS: Options = {
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
};

function generalUsage(): string {
  const width = Math.max(...Object.values(COMMANDS).map((command) => command.synopsis.length));
  const lines = Object.values(COMMANDS).map((command) =>
    command.synopsis.length > 40
      ? `  ${command.synopsis}\n      ${command.summary}`
      : `  ${command.synopsis.padEnd(Math.min(width, 40))}  ${command.summary}`,
  );
  return [
    "Usage: pharos <command> [options]",
    "",
    "Manages the workspaces and API keys of the database DATABASE_URL names, as the server does, and backs it up",
    "(default sqlite:./data/pharos.db; relative paths are resolved against the repository root).",
    "",
    "Commands:",
    ...lines,
    `  ${"worker [--concurrency <n>]".padEnd(Math.min(width, 40))}  Execute evaluation runs (PostgreSQL) until SIGTERM; see worker --help`,
    "",
    "Options of every command:",
    "  --json        print the result as JSON on stdout",
    "  -h, --help    show the help of a command",
    "",
    "Exit codes: 0 done, 1 failed (unknown id, database error), 2 bad arguments.",
    "",
  ].join("\n");
}

function commandUsage(command: Command): string {
  return [
    `Usage: pharos ${command.synopsis} [--json]`,
    "",
    `${command.summary}.`,
    ...(command.details ? ["", ...command.details.map((line) => `  ${line}`)] : []),
    "",
  ].join("\n");
}

function requiredName(value: unknown, flag: string): string {
  const name = typeof value === "string" ? value.trim() : "";
  if (name === "") throw new UsageError(`${flag} <name> is required and may not be empty`);
  if (name.length > MAX_NAME_LENGTH) throw new UsageError(`${flag} is longer than ${MAX_NAME_LENGTH} characters`);
  return name;
}

const iso = (ms: number) => new Date(ms).toISOString();

const DURATION = /^(\d{1,5})([dh])$/;

/** `--expires`: a duration from `now` (90d, 12h) or a time Date.parse reads; in the future either way. */
function expiryOf(when: string, now: number): number {
  const duration = DURATION.exec(when);
  const at = duration
    ? now + Number(duration[1]) * (duration[2] === "d" ? 86_400_000 : 3_600_000)
    : /^\d{4}-\d{2}-\d{2}/.test(when)
      ? Date.parse(when)
      : Number.NaN;
  if (Number.isNaN(at))
    throw new UsageError(`--expires must be a time (2027-01-31T12:00:00Z) or a duration (90d, 12h), not "${when}"`);
  if (at <= now) throw new UsageError(`--expires ${when} is not in the future`);
  return at;
}

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length))) ?? [];
  return rows
    .map((row) => `${row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join("  ")}`.trimEnd())
    .join("\n")
    .concat("\n");
}

async function openDatabase(env: CliIo["env"]): Promise<Store> {
  const databaseUrl = resolveDatabaseUrl(env.DATABASE_URL?.trim() || undefined);
  let store: Store | undefined;
  try {
    store = openStore(databaseUrl);
    await store.migrate();
    return store;
  } catch (error) {
    await store?.close().catch(() => {});
    throw new CommandError(`cannot open the database ${redactDatabaseUrl(databaseUrl)}: ${describeError(error)}`);
  }
}

/** Runs one command; returns the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [group, verb] = argv;
  const isHelp = (word: string | undefined) => word === "-h" || word === "--help" || word === "help";
  if (group === undefined || isHelp(group)) {
    (group === undefined ? io.stderr : io.stdout)(generalUsage());
    return group === undefined ? 2 : 0;
  }
  // One word (`backup <file>`) or a group and a verb (`keys create`). Own commands only: `pharos constructor`
  // must not find what every object inherits.
  const words = Object.hasOwn(COMMANDS, group) ? 1 : 2;
  const name = words === 1 ? group : `${group} ${verb ?? ""}`.trim();
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    const groupKnown = Object.keys(COMMANDS).some((key) => key.startsWith(`${group} `));
    if (groupKnown && (verb === undefined || isHelp(verb))) {
      const lines = Object.entries(COMMANDS).filter(([key]) => key.startsWith(`${group} `));
      const usage = `Usage:\n${lines.map(([, c]) => `  pharos ${c.synopsis}\n      ${c.summary}`).join("\n")}\n`;
      (verb === undefined ? io.stderr : io.stdout)(usage);
      return verb === undefined ? 2 : 0;
    }
    io.stderr(`pharos: unknown command "${name}"\n\n${generalUsage()}`);
    return 2;
  }

  let store: Store | undefined;
  try {
    let parsed: { values: Values; positionals: string[] };
    try {
      parsed = parseArgs({
        args: argv.slice(words) as string[],
        options: { ...command.options, ...COMMON_OPTIONS },
        allowPositionals: true,
        strict: true,
      }) as typeof parsed;
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    if (parsed.values.help) {
      io.stdout(commandUsage(command));
      return 0;
    }
    const expected = command.positionals ?? [];
    if (parsed.positionals.length !== expected.length) {
      const problem =
        parsed.positionals.length < expected.length
          ? `missing ${expected
              .slice(parsed.positionals.length)
              .map((p) => `<${p}>`)
              .join(" ")}`
          : `unexpected argument "${parsed.positionals[expected.length]}"`;
      throw new UsageError(problem);
    }

    const json = parsed.values.json === true;
    if (command.runAlone) {
      await command.runAlone({ ...parsed, io, json });
      return 0;
    }
    store = await openDatabase(io.env);
    const admin = adminContext(store);
    await command.run?.({ ...parsed, admin, io, json });
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`pharos ${name}: ${error.message}\nUsage: pharos ${command.synopsis}  (pharos ${name} --help)\n`);
      return 2;
    }
    if (error instanceof ConfigError) {
      io.stderr(`pharos: ${error.message}\n`);
      return 1;
    }
    if (error instanceof CommandError) {
      io.stderr(`pharos ${name}: ${error.message}\n`);
      return 1;
    }
    io.stderr(`pharos ${name}: ${describeError(error)}\n`);
    return 1;
  } finally {
    await store?.close().catch(() => {});
  }
}
