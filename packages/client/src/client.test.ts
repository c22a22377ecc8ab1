import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  adminContext,
  createApiKey,
  createApp,
  createProjectForWorkspace,
  createWorkspace,
  openSqliteStore,
} from "@pharos/server";
import { afterEach, describe, expect, it } from "vitest";
import { createClient, resolveBaseUrl } from "./client.ts";
import { PharosApiError, unwrap } from "./errors.ts";
import { PROJECT, scripted, startServer, type TestServer } from "./testing/http-server.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("base URL", () => {
  it("takes the /v2 base URL as given and maps a bare origin to its /v2", () => {
    expect(resolveBaseUrl("http://127.0.0.1:8080/v2")).toBe("http://127.0.0.1:8080/v2");
    expect(resolveBaseUrl("http://127.0.0.1:8080/v2/")).toBe("http://127.0.0.1:8080/v2");
    expect(resolveBaseUrl("http://127.0.0.1:8080")).toBe("http://127.0.0.1:8080/v2");
    expect(resolveBaseUrl("http://127.0.0.1:8080/")).toBe("http://127.0.0.1:8080/v2");
    expect(resolveBaseUrl("https://example.com/pharos/v2")).toBe("https://example.com/pharos/v2");
  });

  it.each(["", "/v2"])("sends operations under /v2 (base URL origin + %j)", async (suffix) => {
    server = await startServer(scripted({ status: 200, body: PROJECT }));
    const client = createClient({ baseUrl: `${server.origin}${suffix}`, apiKey: "k" });
    await client.GET("/projects/{projectId}", { params: { path: { projectId: PROJECT.id } } });
    expect(server.requests[0]?.url).toBe(`/v2/projects/${PROJECT.id}`);
  });
});

describe("middleware", () => {
  it("sends the key as a bearer token and a fresh UUID request id per request", async () => {
    server = await startServer(scripted({ status: 200, body: PROJECT }));
    const client = createClient({ baseUrl: server.origin, apiKey: "pharos_secret" });
    await client.GET("/projects");
    await client.GET("/projects");
    const [first, second] = server.requests;
    expect(first?.headers.authorization).toBe("Bearer pharos_secret");
    expect(first?.headers["x-request-id"]).toMatch(UUID);
    expect(second?.headers["x-request-id"]).toMatch(UUID);
    expect(second?.headers["x-request-id"]).not.toBe(first?.headers["x-request-id"]);
  });

  it("keeps a request id and an Authorization header the caller set", async () => {
    server = await startServer(scripted({ status: 200, body: PROJECT }));
    const client = createClient({ baseUrl: server.origin, apiKey: "pharos_secret" });
    const id = "0b6f4c7e-3f8a-4a53-9d0c-6f1f5a1d2e3b";
    await client.GET("/projects", { headers: { "X-Request-Id": id, Authorization: "Bearer other" } });
    expect(server.requests[0]?.headers["x-request-id"]).toBe(id);
    expect(server.requests[0]?.headers.authorization).toBe("Bearer other");
  });

  it("sends no Authorization header with apiKey null", async () => {
    server = await startServer(scripted({ status: 401, body: { error: { code: "AUTHENTICATION_REQUIRED" } } }));
    const client = createClient({ baseUrl: server.origin, apiKey: null });
    const { response } = await client.GET("/projects");
    expect(response.status).toBe(401);
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
  });
});

describe("against the Pharos server in-process", () => {
  it("creates and reads a project through app.fetch, and unwraps errors into PharosApiError", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pharos-client-"));
    const store = openSqliteStore(join(dir, "pharos.db"));
    try {
      await store.migrate();
      const admin = adminContext(store);
      const workspace = await createWorkspace(admin, "Client test");
      await createProjectForWorkspace(admin, workspace.id, "Default");
      const { key } = await createApiKey(admin, {
        workspaceId: workspace.id,
        name: "t",
        role: "full",
        projectIds: null,
      });
      const app = await createApp({ store });
      const client = createClient({
        baseUrl: "http://pharos.test/v2",
        apiKey: key as string,
        fetch: (request) => Promise.resolve(app.fetch(request)),
      });

      const created = unwrap(await client.POST("/projects", { body: { title: "Through the client" } }));
      expect(created.title).toBe("Through the client");
      const read = await client.GET("/projects/{projectId}", { params: { path: { projectId: created.id } } });
      expect(read.response.status).toBe(200);
      expect(read.data).toEqual(created);
      expect(read.response.headers.get("X-Request-Id")).toMatch(UUID);

      const missing = await client.GET("/projects/{projectId}", {
        params: { path: { projectId: `project_${"0".repeat(26)}` } },
      });
      const thrown = (() => {
        try {
          unwrap(missing);
        } catch (error) {
          return error;
        }
      })();
      expect(thrown).toBeInstanceOf(PharosApiError);
      expect(thrown).toMatchObject({ status: 404, code: "RESOURCE_NOT_FOUND" });
      expect((thrown as PharosApiError).requestId).toMatch(UUID);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
