/** The workspace's API keys (GET/POST /api-keys, DELETE /api-keys/{apiKeyId}) through the client, every response validated against the spec. */
import { unwrap } from "@pharos/client";
import { describe, expect, it } from "vitest";
import { errorMatrixOf, itProvokedEveryDocumentedStatus, type Send } from "./cases.ts";
import { runTag } from "./fixtures.ts";
import { expectError, expectStatus } from "./replies.ts";
import { useTarget } from "./target.ts";

const use = useTarget();
const itAnswersTheErrorMatrix = errorMatrixOf(use, () => use().projectId);
const run = runTag();

const newKey = async (name = `Conformance ${run}`) =>
  unwrap(await use().client.POST("/api-keys", { body: { name, role: "read-only" } }));

describe("listApiKeys", () => {
  const send: Send = (client, extra) => client.GET("/api-keys", { ...extra });

  it("200: the workspace's keys without secrets", async () => {
    const created = await newKey();
    const reply = await use().client.GET("/api-keys", { params: { query: { limit: 200 } } });
    expectStatus(reply, 200);
    const listed = reply.data?.apiKeys.find((key) => key.id === created.id);
    expect(listed).toMatchObject({ name: created.name, role: "read-only", revokedAt: null });
    expect(listed).not.toHaveProperty("key");
  });

  it("400 INVALID_CURSOR for a tampered cursor", async () => {
    expectError(
      await use().client.GET("/api-keys", { params: { query: { cursor: "garbage" } } }),
      400,
      "INVALID_CURSOR",
    );
  });

  itAnswersTheErrorMatrix({ access: "workspace-write", send, hidden: false, project: false });
});

describe("createApiKey", () => {
  const send: Send = (client, extra) =>
    client.POST("/api-keys", { body: { name: `Matrix ${run}`, role: "ingest-only" }, ...extra });

  it("201: the key with its full key, which then authenticates", async () => {
    const created = await use().client.POST("/api-keys", { body: { name: `Created ${run}`, role: "read-only" } });
    expectStatus(created, 201);
    const key = created.data?.key as string;
    expectStatus(await use().clientWithKey(key).GET("/projects", {}), 200);
  });

  it("400 VALIDATION_ERROR for an unknown role; 404 for an unknown project", async () => {
    const { client } = use();
    expectError(
      await client.POST("/api-keys", { body: { name: "x", role: "owner" } as never }),
      400,
      "VALIDATION_ERROR",
    );
    expectError(
      await client.POST("/api-keys", { body: { name: "x", role: "full", projectIds: [`project_${"0".repeat(26)}`] } }),
      404,
      "RESOURCE_NOT_FOUND",
    );
  });

  itAnswersTheErrorMatrix({ access: "workspace-write", send, hidden: false, body: true, project: false });
});

describe("deleteApiKey", () => {
  const send: Send = (client, extra, id) =>
    client.DELETE("/api-keys/{apiKeyId}", {
      params: { path: { apiKeyId: id ?? `apikey_${"1".repeat(26)}` } },
      ...extra,
    });

  it("204: revokes the key, which is then refused (401); again is 204", async () => {
    const created = await newKey(`Revoked ${run}`);
    expectStatus(
      await use().client.DELETE("/api-keys/{apiKeyId}", { params: { path: { apiKeyId: created.id } } }),
      204,
    );
    expectError(await use().clientWithKey(created.key).GET("/projects", {}), 401, "AUTHENTICATION_REQUIRED");
    expectStatus(
      await use().client.DELETE("/api-keys/{apiKeyId}", { params: { path: { apiKeyId: created.id } } }),
      204,
    );
  });

  it("409 CONFLICT when the last active admin key revokes itself", async (ctx) => {
    const t = use();
    if (!t.admin) return ctx.skip();
    const other = await t.admin.otherWorkspace();
    const client = t.clientWithKey(other.key);
    const own = unwrap(await client.GET("/api-keys", {})).apiKeys[0];
    expectError(
      await client.DELETE("/api-keys/{apiKeyId}", { params: { path: { apiKeyId: own?.id as string } } }),
      409,
      "CONFLICT",
    );
  });

  itAnswersTheErrorMatrix({ access: "workspace-write", send, unknown: "apikey", project: false });
});

itProvokedEveryDocumentedStatus(use, ["listApiKeys", "createApiKey", "deleteApiKey"]);
