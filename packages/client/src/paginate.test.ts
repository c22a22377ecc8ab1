import { afterEach, describe, expect, it } from "vitest";
import { createClient } from "./client.ts";
import { PharosApiError } from "./errors.ts";
import { pages, paginate } from "./paginate.ts";
import { type Answer, errorBody, PROJECT, type Recorded, startServer, type TestServer } from "./testing/http-server.ts";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const PROJECT_ID = "project_01JD8Q4KZ8T6V2M3N4P5Q6R7S8";
const projects = Array.from({ length: 5 }, (_, i) => ({ ...PROJECT, id: `project_${String(i).padStart(26, "0")}` }));
const traces = Array.from({ length: 5 }, (_, i) => ({ id: `trace_${String(i).padStart(26, "0")}`, name: `t${i}` }));

/** One page of `items` starting at the position the cursor names; cursors are `c<offset>`. */
function page(key: string, items: unknown[], limit: number, cursor: string | undefined) {
  const offset = cursor === undefined ? 0 : Number(cursor.slice(1));
  const slice = items.slice(offset, offset + limit);
  const hasMore = offset + limit < items.length;
  return {
    [key]: slice,
    pagination: { limit, returned: slice.length, hasMore, nextCursor: hasMore ? `c${offset + limit}` : null },
  };
}

/** A paged server: GET /v2/projects reads `limit`/`cursor` from the query, POST /v2/logs/traces from the body. */
function pagedServer(fail?: (request: Recorded, index: number) => Answer | undefined) {
  return startServer((request, index) => {
    const failure = fail?.(request, index);
    if (failure) return failure;
    const url = new URL(request.url, "http://x");
    if (request.method === "GET" && url.pathname === "/v2/projects") {
      const limit = Number(url.searchParams.get("limit") ?? 50);
      return { status: 200, body: page("projects", projects, limit, url.searchParams.get("cursor") ?? undefined) };
    }
    if (request.method === "POST" && url.pathname === "/v2/logs/traces") {
      const body = JSON.parse(request.body) as { limit?: number; cursor?: string };
      return { status: 200, body: page("traces", traces, body.limit ?? 50, body.cursor) };
    }
    return { status: 404, body: errorBody("RESOURCE_NOT_FOUND") };
  });
}

describe("paginate", () => {
  it("follows nextCursor in the query of a GET list and yields every item once, in order", async () => {
    server = await pagedServer();
    const client = createClient({ baseUrl: server.origin, apiKey: "k" });
    const seen: string[] = [];
    for await (const project of paginate(client, "GET", "/projects", {
      params: { query: { limit: 2, sort: "createdAt:asc" } },
    })) {
      seen.push(project.id);
    }
    expect(seen).toEqual(projects.map((p) => p.id));
    const queries = server.requests.map((r) => Object.fromEntries(new URL(r.url, "http://x").searchParams));
    expect(queries).toEqual([
      { limit: "2", sort: "createdAt:asc" },
      { limit: "2", sort: "createdAt:asc", cursor: "c2" },
      { limit: "2", sort: "createdAt:asc", cursor: "c4" },
    ]);
  });

  it("follows nextCursor in the body of a POST search, keeping the other fields", async () => {
    server = await pagedServer();
    const client = createClient({ baseUrl: server.origin, apiKey: "k" });
    const names: string[] = [];
    for await (const trace of paginate(client, "POST", "/logs/traces", {
      body: { projectId: PROJECT_ID, limit: 3, status: "success" },
    })) {
      names.push(trace.name as string);
    }
    expect(names).toEqual(["t0", "t1", "t2", "t3", "t4"]);
    expect(server.requests.map((r) => JSON.parse(r.body))).toEqual([
      { projectId: PROJECT_ID, limit: 3, status: "success" },
      { projectId: PROJECT_ID, limit: 3, status: "success", cursor: "c3" },
    ]);
  });

  it("stops after one request when the first page is the last", async () => {
    server = await pagedServer();
    const client = createClient({ baseUrl: server.origin, apiKey: "k" });
    const all = [];
    for await (const project of paginate(client, "GET", "/projects")) all.push(project);
    expect(all).toHaveLength(5);
    expect(server.requests).toHaveLength(1);
  });

  it("lets the caller stop early without fetching further pages", async () => {
    server = await pagedServer();
    const client = createClient({ baseUrl: server.origin, apiKey: "k" });
    for await (const project of paginate(client, "GET", "/projects", { params: { query: { limit: 2 } } })) {
      expect(project.id).toBe(projects[0]?.id);
      break;
    }
    expect(server.requests).toHaveLength(1);
  });

  it("yields whole pages with pages()", async () => {
    server = await pagedServer();
    const client = createClient({ baseUrl: server.origin, apiKey: "k" });
    const returned: number[] = [];
    for await (const p of pages(client, "GET", "/projects", { params: { query: { limit: 2 } } })) {
      returned.push(p.pagination.returned);
    }
    expect(returned).toEqual([2, 2, 1]);
  });

  it("retries a failed page through the client's retries", async () => {
    server = await pagedServer((_, index) => (index === 1 ? { status: 503 } : undefined));
    const client = createClient({ baseUrl: server.origin, apiKey: "k", retry: { sleep: async () => {} } });
    const all = [];
    for await (const project of paginate(client, "GET", "/projects", { params: { query: { limit: 2 } } })) {
      all.push(project);
    }
    expect(all).toHaveLength(5);
    expect(server.requests).toHaveLength(4);
  });

  it("throws PharosApiError when a page is refused, after yielding the earlier pages", async () => {
    server = await pagedServer((request) =>
      new URL(request.url, "http://x").searchParams.get("cursor") === "c2"
        ? { status: 400, body: errorBody("INVALID_CURSOR", "Cursor is invalid.") }
        : undefined,
    );
    const client = createClient({ baseUrl: server.origin, apiKey: "k" });
    const seen: string[] = [];
    const run = async () => {
      for await (const project of paginate(client, "GET", "/projects", { params: { query: { limit: 2 } } })) {
        seen.push(project.id);
      }
    };
    const error = await run().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PharosApiError);
    expect(error).toMatchObject({ status: 400, code: "INVALID_CURSOR" });
    expect(seen).toHaveLength(2);
  });
});
