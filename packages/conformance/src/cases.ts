/**
 * Cases every operation shares, from one factory: 401 without or with a bad key, 400 for malformed JSON, 413
 * for an oversized body, 404 for another workspace's resource; and the closing check that every documented
 * status of the file's operations was provoked.
 */
import type { PharosClient } from "@pharos/client";
import { expect, it, type TestContext } from "vitest";
import { unknownId } from "./fixtures.ts";
import { expectError, expectStatus } from "./replies.ts";
import { bundle, responsesOf, specOperationById } from "./spec.ts";
import { observed, type Target } from "./target.ts";

export interface Reply {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/** Per-request overrides a shared case needs: a raw body or extra headers. */
export interface Extra {
  bodySerializer?: (body: unknown) => string;
  headers?: Record<string, string>;
}

/**
 * Sends one valid request of the operation under test with `client`, merging `extra` into its init. `id`, when
 * given, replaces the id of the resource the request names (the matrix's unknown id), `parent` the id of the
 * resource it lives under (the matrix's other parent).
 */
export type Send = (client: PharosClient, extra: Extra, id?: string, parent?: string) => Promise<Reply>;

export const UNKNOWN_KEY = "phk_01JD8Q2A1B2C3D4E5F6G7H8J9K_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

/** Skips the running test outside in-process mode, saying why; returns the admin powers otherwise. */
export function inProcessOnly(ctx: TestContext, target: Target, why: string) {
  if (!target.admin) {
    ctx.skip(`needs ${why}, which the kit can create only in-process (PHAROS_BASE_URL is set)`);
    throw new Error("unreachable");
  }
  return target.admin;
}

export function itRequiresAKey(use: () => Target, send: Send): void {
  it("401 AUTHENTICATION_REQUIRED without a key, with a malformed key and with an unknown key", async () => {
    const t = use();
    for (const key of [null, "not-a-key", UNKNOWN_KEY]) {
      expectError(await send(t.clientWithKey(key), {}), 401, "AUTHENTICATION_REQUIRED");
    }
  });
}

/**
 * 403 FORBIDDEN for keys of `roles` (none: a read every role may make), and for a full key restricted to the
 * target's own project (the operation's resource lives in another project). In-process only: admin makes the keys.
 */
export function itForbidsKeys(use: () => Target, send: Send, roles: readonly ("read-only" | "ingest-only")[]): void {
  const forRoles = roles.length > 0 ? `${roles.join(" and ")} keys and ` : "";
  it(`403 FORBIDDEN for ${forRoles}a key restricted to another project`, async (ctx) => {
    const t = use();
    const admin = inProcessOnly(ctx, t, roles.length > 0 ? "keys of other roles" : "a project-restricted key");
    for (const role of roles) {
      expectError(await send(t.clientWithKey(await admin.newKey(role)), {}), 403, "FORBIDDEN");
    }
    expectError(await send(t.clientWithKey(await admin.newKey("full", [t.projectId])), {}), 403, "FORBIDDEN");
  });
}

export function itRejectsMalformedJson(use: () => Target, send: Send): void {
  it("400 VALIDATION_ERROR for malformed JSON and for a non-JSON content type", async () => {
    const t = use();
    expectError(await send(t.client, { bodySerializer: () => "{not json" }), 400, "VALIDATION_ERROR");
    expectError(
      await send(t.client, { bodySerializer: () => "hello", headers: { "Content-Type": "text/plain" } }),
      400,
      "VALIDATION_ERROR",
    );
  });
}

const MAX_BODY_BYTES = 32 * 1024 * 1024;
let oversized: string | undefined;

export function itRejectsOversizedBody(use: () => Target, send: Send): void {
  it("413 PAYLOAD_TOO_LARGE for a body over 32 MB", async () => {
    oversized ??= `{"padding":"${"x".repeat(MAX_BODY_BYTES)}"}`;
    const body = oversized;
    expectError(await send(use().client, { bodySerializer: () => body }), 413, "PAYLOAD_TOO_LARGE");
  });
}

export function itHidesOtherWorkspaces(use: () => Target, send: Send): void {
  it("404 RESOURCE_NOT_FOUND to a key of another workspace", async (ctx) => {
    const t = use();
    const other = await inProcessOnly(ctx, t, "a second workspace").otherWorkspace();
    expectError(await send(t.clientWithKey(other.key), {}), 404, "RESOURCE_NOT_FOUND");
  });
}

/** Statuses no client request can provoke on demand, and why. */
export const UNPROVOKED_STATUSES: Record<string, string> = {
  "429":
    "the rate limits (thousands of requests per minute per workspace) are out of a test run's reach; the server's tests provoke 429 under a low limit (http/rate-limit.test.ts), the client's 429 handling is tested against a loopback server",
  "500": "a fault of the server; no valid or invalid request may cause one",
  "503":
    "log writes are refused only while storage commits slower than they arrive; the server's tests provoke 503 OVERLOADED with its commits held back (routes/logs/log-write-overload.test.ts)",
};

/**
 * The file's last test: every status each operation documents was answered (and validated) at least once,
 * except UNPROVOKED_STATUSES, and 403 when the kit holds only one key (remote mode).
 */
export function itProvokedEveryDocumentedStatus(
  use: () => Target,
  operationIds: readonly string[],
  /** Further statuses of one operation that cannot be provoked yet, each with the reason. */
  notYet: Record<string, Record<string, string>> = {},
): void {
  it.each(operationIds)("%s: every documented status was provoked and validated", (operationId) => {
    const operation = specOperationById.get(operationId);
    if (!operation) throw new Error(`${operationId} is not in the spec`);
    const excused = new Set([...Object.keys(UNPROVOKED_STATUSES), ...Object.keys(notYet[operationId] ?? {})]);
    if (use().mode === "remote") excused.add("403");
    const documented = [...responsesOf(bundle, operation).keys()].filter((status) => !excused.has(status));
    const seen = [...(observed.get(operationId) ?? [])].map(String);
    expect(documented.filter((status) => !seen.includes(status))).toEqual([]);
  });
}

/** Roles a key may have besides `full`. */
export type KeyRole = "read-only" | "ingest-only";

/**
 * What an operation needs of a key, as the spec's description of roles and project restrictions says: `read`
 * (every role but ingest-only), `write` (full keys), `ingest` (log writes: full and ingest-only keys) and
 * `deployment-read` (every role) act on the resources of one project, so a key restricted to other projects is
 * refused; `workspace-read` and `workspace-write` act on records of the workspace (providers, the project list):
 * a restricted key may read them but never change them.
 */
export type Access = "read" | "write" | "ingest" | "deployment-read" | "workspace-read" | "workspace-write";

const REFUSED_ROLES: Record<Access, readonly KeyRole[]> = {
  read: ["ingest-only"],
  write: ["read-only", "ingest-only"],
  ingest: ["read-only"],
  "deployment-read": [],
  "workspace-read": ["ingest-only"],
  "workspace-write": ["read-only", "ingest-only"],
};
const SERVED_ROLES: Record<Access, readonly KeyRole[]> = {
  read: ["read-only"],
  write: [],
  ingest: ["ingest-only"],
  "deployment-read": ["read-only", "ingest-only"],
  "workspace-read": ["read-only"],
  "workspace-write": [],
};
const isRead = (access: Access) => access === "read" || access === "deployment-read" || access === "workspace-read";

/** The error matrix of one operation: what its shared cases need to know. */
export interface ErrorMatrix {
  access: Access;
  /** Sends one valid request of the operation, which the target's full key may make. */
  send: Send;
  /** The id prefix of the resource the request names: such an id too short is 400, one that names nothing 404. */
  unknown?: string;
  /** Another parent of the kind the resource lives under (a prompt, a dataset): the resource named under it is 404. */
  elsewhere?: { parent: string; create: (client: PharosClient) => Promise<string> };
  /** Whether the request names a resource of the workspace, which a key of another workspace must not find (404). */
  hidden?: boolean;
  /** Whether the request has a JSON body: 400 for malformed JSON or another content type, 413 over 32 MB. */
  body?: boolean;
  /** The project of the request's resources: a key restricted to it may make the request (checked last). */
  project?: () => string;
  /** Reads what the operation would change: the requests the matrix refuses must leave it as it was. */
  unchanged?: (client: PharosClient) => Promise<unknown>;
}

const PHRASES: Record<KeyRole, string> = { "read-only": "read-only keys", "ingest-only": "ingest-only keys" };
/** "a", "a and b", "a, b and c". */
const listed = (words: readonly string[]) =>
  words.length < 2 ? words.join("") : `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`;

/**
 * The operation's shared cases, from its matrix: 401 without or with a bad key; 403 for the roles its access
 * refuses and for a key restricted to another project (unless the access serves it); the roles its access
 * serves answered as the full key is; 404 for an unknown resource and to another workspace's key; 400 for
 * malformed JSON and 413 for an oversized body; nothing changed by any of those refusals; and last (a delete
 * then deletes its target) a key restricted to the resource's project served.
 */
export function itAnswersTheErrorMatrix(use: () => Target, matrix: ErrorMatrix): void {
  const { access, send, unknown, elsewhere, hidden = true, body = false, project, unchanged } = matrix;
  const refused = REFUSED_ROLES[access];
  const restrictedRefused = access !== "workspace-read";
  const served = SERVED_ROLES[access];
  itRequiresAKey(use, send);
  if (restrictedRefused) itForbidsKeys(use, send, refused);
  else itForbidsRoles(use, send, refused);
  if (restrictedRefused && served.length > 0) {
    it(`403 FORBIDDEN for ${listed(served.map((role) => PHRASES[role]))} restricted to another project`, async (ctx) => {
      const t = use();
      const admin = inProcessOnly(ctx, t, "project-restricted keys");
      for (const role of served) {
        expectError(await send(t.clientWithKey(await admin.newKey(role, [t.projectId])), {}), 403, "FORBIDDEN");
      }
    });
  }
  itServesKeys(use, send, access, served, !restrictedRefused);
  if (unknown) {
    it("400 VALIDATION_ERROR for an id shorter than 20 characters", async () => {
      expectError(await send(use().client, {}, `${unknown}_1`), 400, "VALIDATION_ERROR");
    });
    it("404 RESOURCE_NOT_FOUND for an unknown id", async () => {
      expectError(await send(use().client, {}, unknownId(unknown)), 404, "RESOURCE_NOT_FOUND");
    });
  }
  if (elsewhere) {
    it(`404 RESOURCE_NOT_FOUND for it under another ${elsewhere.parent}`, async () => {
      const { client } = use();
      expectError(await send(client, {}, undefined, await elsewhere.create(client)), 404, "RESOURCE_NOT_FOUND");
    });
  }
  if (hidden) itHidesOtherWorkspaces(use, send);
  if (body) {
    itRejectsMalformedJson(use, send);
    itRejectsOversizedBody(use, send);
  }
  if (unchanged) {
    const refusals = [
      "401",
      "403",
      ...(hidden ? ["404 to another workspace"] : []),
      ...(body ? ["400 for malformed JSON"] : []),
    ];
    it(`changes nothing when it refuses a request: ${refusals.join(", ")}`, async () => {
      const t = use();
      const before = await unchanged(t.client);
      const answers: [Reply, number][] = [[await send(t.clientWithKey(null), {}), 401]];
      if (t.admin) {
        for (const role of refused) answers.push([await send(t.clientWithKey(await t.admin.newKey(role)), {}), 403]);
        if (restrictedRefused) {
          answers.push([await send(t.clientWithKey(await t.admin.newKey("full", [t.projectId])), {}), 403]);
        }
        if (hidden) answers.push([await send(t.clientWithKey((await t.admin.otherWorkspace()).key), {}), 404]);
      }
      if (body) answers.push([await send(t.client, { bodySerializer: () => "{not json" }), 400]);
      expect(answers.map(([reply]) => reply.response.status)).toEqual(answers.map(([, status]) => status));
      expect(await unchanged(t.client)).toEqual(before);
    });
  }
  if (project) {
    const who = listed(["full", ...served]);
    it(`${isRead(access) ? "answers as for the full key" : "succeeds"} for ${who} keys restricted to the resource's project`, async (ctx) => {
      const t = use();
      const admin = inProcessOnly(ctx, t, "project-restricted keys");
      for (const role of ["full", ...served] as const) {
        await expectServed(t, send, access, await admin.newKey(role, [project()]));
      }
    });
  }
}

/** 403 FORBIDDEN for keys of `roles` (none: nothing to check). */
function itForbidsRoles(use: () => Target, send: Send, roles: readonly KeyRole[]): void {
  if (roles.length === 0) return;
  it(`403 FORBIDDEN for ${listed(roles.map((role) => PHRASES[role]))}`, async (ctx) => {
    const t = use();
    const admin = inProcessOnly(ctx, t, "keys of other roles");
    for (const role of roles) expectError(await send(t.clientWithKey(await admin.newKey(role)), {}), 403, "FORBIDDEN");
  });
}

/** The roles an access serves (and, for workspace records, a key restricted to another project) may. */
function itServesKeys(
  use: () => Target,
  send: Send,
  access: Access,
  roles: readonly KeyRole[],
  restrictedServed: boolean,
): void {
  const who = [
    ...roles.map((role) => PHRASES[role]),
    ...(restrictedServed ? ["a key restricted to another project"] : []),
  ];
  if (who.length === 0) return;
  it(`${isRead(access) ? "answers as for the full key" : "succeeds"} for ${listed(who)}`, async (ctx) => {
    const t = use();
    const admin = inProcessOnly(ctx, t, "keys of other roles");
    for (const role of roles) await expectServed(t, send, access, await admin.newKey(role));
    // A restricted key sees only its projects: a list of workspace records may differ, its status may not.
    if (restrictedServed) expectStatus(await send(t.clientWithKey(await admin.newKey("full", [t.projectId])), {}), 200);
  });
}

/** A read answers `key` as it answers the full key; a write succeeds. */
async function expectServed(t: Target, send: Send, access: Access, key: string): Promise<void> {
  const reply = await send(t.clientWithKey(key), {});
  if (!isRead(access)) {
    expect(reply.response.ok, JSON.stringify(reply.error)).toBe(true);
    return;
  }
  const expected = await send(t.client, {});
  expectStatus(reply, expected.response.status);
  expect(reply.data).toEqual(expected.data);
}

/**
 * itAnswersTheErrorMatrix for the operations of one file whose resources live in the file's project: each call
 * checks that keys restricted to that project are served, unless it says `project: false`.
 */
export function errorMatrixOf(use: () => Target, project: () => string) {
  return (matrix: Omit<ErrorMatrix, "project"> & { project?: false }) =>
    itAnswersTheErrorMatrix(use, { ...matrix, project: matrix.project === false ? undefined : project });
}
