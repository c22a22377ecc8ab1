/** Sessions and end users of a project's logs (GET /projects/{projectId}/sessions, /users, a session's traces) through the client, every response validated against the spec. */
import { paginate, unwrap } from "@pharos/client";
import { beforeAll, describe, expect, it } from "vitest";
import { errorMatrixOf, itProvokedEveryDocumentedStatus, type Send } from "./cases.ts";
import { newProject, runTag } from "./fixtures.ts";
import { expectError, expectStatus } from "./replies.ts";
import { useTarget } from "./target.ts";

const use = useTarget();
const itAnswersTheErrorMatrix = errorMatrixOf(use, () => projectId);
const run = runTag();

/** An hour ago, so every time the scenarios write is in the past, whatever the server's clock checks. */
const T = Date.now() - 3_600_000;
const session = `sess-${run}`;

let projectId: string;
/** The session's traces, oldest first. */
const traceIds: string[] = [];

beforeAll(async () => {
  const { client } = use();
  projectId = (await newProject(client, `Sessions ${run}`)).id;
  // Written newest first: the session's traces come back in time order whatever the order of the writes.
  for (let i = 2; i >= 0; i--) {
    const startedAt = T + i * 1000;
    const written = unwrap(
      await client.POST("/logs/trace", {
        body: {
          projectId,
          trace: {
            name: `turn-${i}`,
            status: i === 1 ? "failure" : "success",
            startedAt,
            endedAt: startedAt + 500,
            sessionId: session,
            userId: `user-${run}-${i % 2}`,
          },
        },
      }),
    );
    traceIds.unshift(written.traceId);
  }
});

describe("listSessions", () => {
  const send: Send = (client, extra, id = projectId) =>
    client.GET("/projects/{projectId}/sessions", { params: { path: { projectId: id } }, ...extra });

  it("200: the project's sessions with the totals of their traces", async () => {
    const reply = await send(use().client, {});
    expectStatus(reply, 200);
    expect(reply.data).toEqual({
      sessions: [
        {
          id: session,
          firstSeenAt: T,
          lastSeenAt: T + 2000,
          traceCount: 3,
          errorCount: 1,
          totalCost: 0,
          totalInputTokens: 0,
          totalOutputTokens: 0,
        },
      ],
      pagination: { limit: 50, returned: 1, hasMore: false, nextCursor: null },
    });
  });

  it("400 VALIDATION_ERROR for an unknown sort, 400 INVALID_CURSOR for a tampered cursor", async () => {
    const { client } = use();
    const params = (query: Record<string, unknown>) => ({ params: { path: { projectId }, query } }) as never;
    expectError(
      await client.GET("/projects/{projectId}/sessions", params({ sort: "name:asc" })),
      400,
      "VALIDATION_ERROR",
    );
    expectError(
      await client.GET("/projects/{projectId}/sessions", params({ cursor: "garbage" })),
      400,
      "INVALID_CURSOR",
    );
  });

  itAnswersTheErrorMatrix({ access: "read", send, unknown: "project" });
});

describe("listSessionTraces", () => {
  const send: Send = (client, extra, id = projectId) =>
    client.GET("/projects/{projectId}/sessions/{sessionId}/traces", {
      params: { path: { projectId: id, sessionId: session } },
      ...extra,
    });

  it("200: the session's traces oldest first, page by page", async () => {
    const { client } = use();
    const ids: string[] = [];
    for await (const trace of paginate(client, "GET", "/projects/{projectId}/sessions/{sessionId}/traces", {
      params: { path: { projectId, sessionId: session }, query: { limit: 2 } },
    })) {
      ids.push(trace.id);
    }
    expect(ids).toEqual(traceIds);
  });

  it("400 VALIDATION_ERROR for a session id over 128 characters, 400 INVALID_CURSOR for a tampered cursor", async () => {
    const { client } = use();
    const path = "/projects/{projectId}/sessions/{sessionId}/traces";
    expectError(
      await client.GET(path, { params: { path: { projectId, sessionId: "s".repeat(129) } } }),
      400,
      "VALIDATION_ERROR",
    );
    expectError(
      await client.GET(path, { params: { path: { projectId, sessionId: session }, query: { cursor: "garbage" } } }),
      400,
      "INVALID_CURSOR",
    );
  });

  itAnswersTheErrorMatrix({ access: "read", send, unknown: "project" });
});

describe("listUsers", () => {
  const send: Send = (client, extra, id = projectId) =>
    client.GET("/projects/{projectId}/users", { params: { path: { projectId: id } }, ...extra });

  it("200: the project's end users, by cost or last seen, page by page", async () => {
    const { client } = use();
    const ids: string[] = [];
    for await (const user of paginate(client, "GET", "/projects/{projectId}/users", {
      params: { path: { projectId }, query: { limit: 1, sort: "lastSeenAt:asc" } },
    })) {
      ids.push(user.id);
    }
    expect(ids).toEqual([`user-${run}-1`, `user-${run}-0`]);
    const first = await client.GET("/projects/{projectId}/users", { params: { path: { projectId } } });
    expectStatus(first, 200);
    expect(first.data?.users[0]).toMatchObject({ id: `user-${run}-0`, traceCount: 2, errorCount: 0 });
  });

  it("400 VALIDATION_ERROR for an unknown sort, 400 INVALID_CURSOR for a tampered cursor", async () => {
    const { client } = use();
    const params = (query: Record<string, unknown>) => ({ params: { path: { projectId }, query } }) as never;
    expectError(await client.GET("/projects/{projectId}/users", params({ sort: "cost" })), 400, "VALIDATION_ERROR");
    expectError(await client.GET("/projects/{projectId}/users", params({ cursor: "garbage" })), 400, "INVALID_CURSOR");
  });

  itAnswersTheErrorMatrix({ access: "read", send, unknown: "project" });
});

itProvokedEveryDocumentedStatus(use, ["listSessions", "listSessionTraces", "listUsers"]);
