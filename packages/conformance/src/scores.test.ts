/** Scores and score configs through the client, every response validated against the spec. */
import { type PharosClient, paginate, unwrap } from "@pharos/client";
import { beforeAll, describe, expect, it } from "vitest";
import { errorMatrixOf, itProvokedEveryDocumentedStatus, type Send } from "./cases.ts";
import { newProject, runTag, type Schemas, unknownId } from "./fixtures.ts";
import { expectError, expectStatus } from "./replies.ts";
import { useTarget } from "./target.ts";

const use = useTarget();
const itAnswersTheErrorMatrix = errorMatrixOf(use, () => projectId);
const run = runTag();

/** An hour ago, so every time written is in the past, whatever the server's clock checks. */
const T = Date.now() - 3_600_000;

let projectId: string;
let traceId: string;
let spanId: string;
let config: Schemas["ScoreConfig"];

async function newTrace(client: PharosClient, project: string) {
  return unwrap(
    await client.POST("/logs/trace", {
      body: {
        projectId: project,
        trace: { name: `scored-${run}`, status: "success", startedAt: T, endedAt: T + 900 },
        spans: [
          {
            name: "lookup",
            status: "success",
            startedAt: T + 100,
            endedAt: T + 300,
            content: { type: "Tool", input: "{}", output: "{}" },
          },
        ],
      },
    }),
  );
}

const newScores = async (client: PharosClient, scores: Schemas["ScoreInput"][]) =>
  unwrap(await client.POST("/projects/{projectId}/scores", { params: { path: { projectId } }, body: { scores } }))
    .scores;

const newConfig = async (client: PharosClient, body: Schemas["CreateScoreConfigRequest"]) =>
  unwrap(await client.POST("/projects/{projectId}/score-configs", { params: { path: { projectId } }, body }));

beforeAll(async () => {
  const { client } = use();
  projectId = (await newProject(client, `Scores ${run}`)).id;
  const written = await newTrace(client, projectId);
  traceId = written.traceId;
  spanId = written.spanIds[0] as string;
  config = await newConfig(client, { name: "helpfulness", rule: { type: "numeric", min: 0, max: 1 } });
});

/** Another project of the workspace: a score or config is not found under it. */
const anotherProject = { parent: "project", create: async () => (await newProject(use().client, `Other ${run}`)).id };
const traceScores = async (client: PharosClient) =>
  unwrap(
    await client.POST("/projects/{projectId}/scores/search", {
      params: { path: { projectId } },
      body: { traceId, sort: "createdAt:asc", limit: 200 },
    }),
  ).scores;

describe("createScores", () => {
  const send: Send = (client, extra, id = projectId) =>
    client.POST("/projects/{projectId}/scores", {
      params: { path: { projectId: id } },
      body: { scores: [{ spanId, name: "thumbs", value: true }] },
      ...extra,
    });

  it("201: scores on the trace and on a span, as sent, source api", async () => {
    const reply = await client().POST("/projects/{projectId}/scores", {
      params: { path: { projectId } },
      body: {
        scores: [
          { traceId, name: "helpfulness", value: 0.5, comment: "partly" },
          { spanId, name: "verdict", value: "correct" },
        ],
      },
    });
    expectStatus(reply, 201);
    expect(reply.data?.scores).toMatchObject([
      { traceId, spanId: null, name: "helpfulness", value: 0.5, dataType: "numeric", source: "api" },
      { traceId, spanId, name: "verdict", value: "correct", dataType: "categorical", comment: null },
    ]);
  });

  it("400 VALIDATION_ERROR for 101 scores, no trace or span, and a value its score config refuses", async () => {
    const before = await traceScores(client());
    const many = Array.from({ length: 101 }, () => ({ traceId, name: "n", value: 1 }));
    for (const scores of [many, [{ name: "n", value: 1 }], [{ traceId, name: "helpfulness", value: 2 }]]) {
      const reply = await client().POST("/projects/{projectId}/scores", {
        params: { path: { projectId } },
        body: { scores } as never,
      });
      expectError(reply, 400, "VALIDATION_ERROR");
    }
    expect(await traceScores(client())).toEqual(before);
  });

  it("404 RESOURCE_NOT_FOUND for a trace or a span that is not in the project", async () => {
    const other = await newTrace(client(), await anotherProject.create());
    for (const target of [{ traceId: other.traceId }, { spanId: other.spanIds[0] }, { traceId: unknownId("trace") }]) {
      const reply = await client().POST("/projects/{projectId}/scores", {
        params: { path: { projectId } },
        body: { scores: [{ ...target, name: "n", value: 1 }] },
      });
      expectError(reply, 404, "RESOURCE_NOT_FOUND");
    }
  });

  itAnswersTheErrorMatrix({ access: "ingest", send, unknown: "project", body: true });
});

describe("searchScores", () => {
  const send: Send = (client, extra, id = projectId) =>
    client.POST("/projects/{projectId}/scores/search", {
      params: { path: { projectId: id } },
      body: { traceId, name: "thumbs" },
      ...extra,
    });

  it("200: filters, orders and pages through the project's scores", async () => {
    const made = await newScores(client(), [
      { spanId, name: `paged-${run}`, value: 1 },
      { spanId, name: `paged-${run}`, value: 0 },
      { spanId, name: `paged-${run}`, value: 0.5 },
    ]);
    const page = await client().POST("/projects/{projectId}/scores/search", {
      params: { path: { projectId } },
      body: { name: `paged-${run}`, minValue: 0.5, limit: 1, sort: "createdAt:asc" },
    });
    expectStatus(page, 200);
    expect(page.data?.pagination).toMatchObject({ limit: 1, returned: 1, hasMore: true });
    const ids = [];
    for await (const score of paginate(client(), "POST", "/projects/{projectId}/scores/search", {
      params: { path: { projectId } },
      body: { name: `paged-${run}`, minValue: 0.5, limit: 1, sort: "createdAt:asc" },
    })) {
      ids.push(score.id);
    }
    expect(ids).toEqual([made[0]?.id, made[2]?.id]);
  });

  it("400 for a bad source, 400 INVALID_CURSOR for a tampered cursor", async () => {
    const search = (body: Record<string, unknown>) =>
      client().POST("/projects/{projectId}/scores/search", { params: { path: { projectId } }, body: body as never });
    expectError(await search({ source: "people" }), 400, "VALIDATION_ERROR");
    expectError(await search({ cursor: "garbage" }), 400, "INVALID_CURSOR");
  });

  itAnswersTheErrorMatrix({ access: "read", send, unknown: "project", body: true });
});

describe("deleteScore", () => {
  let victim: Schemas["Score"];
  beforeAll(async () => {
    [victim] = (await newScores(use().client, [{ traceId, name: "victim", value: 1 }])) as [Schemas["Score"]];
  });
  const send: Send = (client, extra, id = victim.id, parent = projectId) =>
    client.DELETE("/projects/{projectId}/scores/{scoreId}", {
      params: { path: { projectId: parent, scoreId: id } },
      ...extra,
    });

  it("204: deletes the score; it is gone afterwards", async () => {
    const [doomed] = await newScores(client(), [{ traceId, name: "doomed", value: 1 }]);
    expectStatus(await send(client(), {}, doomed?.id), 204);
    expect((await traceScores(client())).map((score) => score.id)).not.toContain(doomed?.id);
    expectError(await send(client(), {}, doomed?.id), 404, "RESOURCE_NOT_FOUND");
  });

  itAnswersTheErrorMatrix({
    access: "write",
    send,
    unknown: "score",
    elsewhere: anotherProject,
    unchanged: traceScores,
  });
});

describe("listScoreConfigs", () => {
  const send: Send = (client, extra, id = projectId) =>
    client.GET("/projects/{projectId}/score-configs", { params: { path: { projectId: id } }, ...extra });

  it("200: the project's configs; 400 INVALID_CURSOR for a tampered cursor", async () => {
    const page = await send(client(), {});
    expectStatus(page, 200);
    expect((page.data as Schemas["ScoreConfigList"]).scoreConfigs).toContainEqual(config);
    const tampered = await client().GET("/projects/{projectId}/score-configs", {
      params: { path: { projectId }, query: { cursor: "garbage" } },
    });
    expectError(tampered, 400, "INVALID_CURSOR");
  });

  itAnswersTheErrorMatrix({ access: "read", send, unknown: "project" });
});

describe("createScoreConfig", () => {
  const send: Send = (client, extra, id = projectId) =>
    client.POST("/projects/{projectId}/score-configs", {
      params: { path: { projectId: id } },
      body: { name: `created-${runTag()}`, rule: { type: "boolean" } },
      ...extra,
    });

  it("201: a categorical config; 409 CONFLICT for a second config of its name", async () => {
    const body = { name: `verdict-${run}`, rule: { type: "categorical" as const, categories: ["correct", "wrong"] } };
    const created = await client().POST("/projects/{projectId}/score-configs", {
      params: { path: { projectId } },
      body,
    });
    expectStatus(created, 201);
    expect(created.data).toMatchObject({ ...body, description: "" });
    const again = await client().POST("/projects/{projectId}/score-configs", { params: { path: { projectId } }, body });
    expectError(again, 409, "CONFLICT");
  });

  it("400 VALIDATION_ERROR for min above max and for an unknown rule type", async () => {
    for (const rule of [{ type: "numeric", min: 1, max: 0 }, { type: "stars" }]) {
      const reply = await client().POST("/projects/{projectId}/score-configs", {
        params: { path: { projectId } },
        body: { name: "bad", rule } as never,
      });
      expectError(reply, 400, "VALIDATION_ERROR");
    }
  });

  itAnswersTheErrorMatrix({ access: "write", send, unknown: "project", body: true });
});

const readConfig = async (client: PharosClient) =>
  unwrap(
    await client.GET("/projects/{projectId}/score-configs/{scoreConfigId}", {
      params: { path: { projectId, scoreConfigId: config.id } },
    }),
  );

describe("getScoreConfig", () => {
  const send: Send = (client, extra, id = config.id, parent = projectId) =>
    client.GET("/projects/{projectId}/score-configs/{scoreConfigId}", {
      params: { path: { projectId: parent, scoreConfigId: id } },
      ...extra,
    });

  it("200: the config", async () => {
    const reply = await send(client(), {});
    expectStatus(reply, 200);
    expect(reply.data).toEqual(config);
  });

  itAnswersTheErrorMatrix({ access: "read", send, unknown: "scoreconfig", elsewhere: anotherProject });
});

describe("updateScoreConfig", () => {
  const send: Send = (client, extra, id = config.id, parent = projectId) =>
    client.PATCH("/projects/{projectId}/score-configs/{scoreConfigId}", {
      params: { path: { projectId: parent, scoreConfigId: id } },
      body: { description: `Updated ${run}` },
      ...extra,
    });

  it("200: replaces the rule; 400 for an empty change", async () => {
    const updated = await client().PATCH("/projects/{projectId}/score-configs/{scoreConfigId}", {
      params: { path: { projectId, scoreConfigId: config.id } },
      body: { rule: { type: "numeric", min: 0, max: 1 } },
    });
    expectStatus(updated, 200);
    expect(updated.data).toMatchObject({ name: "helpfulness", rule: { type: "numeric", min: 0, max: 1 } });
    const empty = await client().PATCH("/projects/{projectId}/score-configs/{scoreConfigId}", {
      params: { path: { projectId, scoreConfigId: config.id } },
      body: {},
    });
    expectError(empty, 400, "VALIDATION_ERROR");
  });

  itAnswersTheErrorMatrix({
    access: "write",
    send,
    unknown: "scoreconfig",
    elsewhere: anotherProject,
    body: true,
    unchanged: readConfig,
  });
});

describe("deleteScoreConfig", () => {
  let victim: Schemas["ScoreConfig"];
  beforeAll(async () => {
    victim = await newConfig(use().client, { name: `victim-${run}`, rule: { type: "boolean" } });
  });
  const send: Send = (client, extra, id = victim.id, parent = projectId) =>
    client.DELETE("/projects/{projectId}/score-configs/{scoreConfigId}", {
      params: { path: { projectId: parent, scoreConfigId: id } },
      ...extra,
    });

  it("204: deletes the config; it is gone afterwards", async () => {
    const doomed = await newConfig(client(), { name: `doomed-${run}`, rule: { type: "boolean" } });
    expectStatus(await send(client(), {}, doomed.id), 204);
    expectError(await send(client(), {}, doomed.id), 404, "RESOURCE_NOT_FOUND");
  });

  itAnswersTheErrorMatrix({ access: "write", send, unknown: "scoreconfig", elsewhere: anotherProject });
});

function client() {
  return use().client;
}

itProvokedEveryDocumentedStatus(use, [
  "createScores",
  "searchScores",
  "deleteScore",
  "listScoreConfigs",
  "createScoreConfig",
  "getScoreConfig",
  "updateScoreConfig",
  "deleteScoreConfig",
]);
