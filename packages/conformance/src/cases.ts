/**
 * Cases every operation shares, from one factory: 401 without or with a bad key, 400 for malformed JSON, 413
 * for an oversized body, 404 for another workspace's resource; and the closing check that every documented
 * status of the file's operations was provoked.
 */
import type { PharosClient } from "@pharos/client";
import { expect, it, type TestContext } from "vitest";
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

/** Sends one valid request of the operation under test with `client`, merging `extra` into its init. */
export type Send = (client: PharosClient, extra: Extra) => Promise<Reply>;

export const UNKNOWN_KEY = "phk_01JD8Q2A1B2C3D4E5F6G7H8J9K_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
/** Ids of the right shape that name nothing. */
export const unknownId = (prefix: string) => `${prefix}_${"0".repeat(26)}`;

export function expectError(reply: Reply, status: number, code: string): void {
  const body = reply.error as { error?: { code?: string } } | undefined;
  expect({ status: reply.response.status, code: body?.error?.code }, JSON.stringify(reply.error)).toEqual({
    status,
    code,
  });
}

export function expectStatus(reply: Reply, status: number): void {
  expect(reply.response.status, JSON.stringify(reply.error ?? reply.data)).toBe(status);
}

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
