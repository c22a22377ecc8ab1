/** Projects and deployment environments through the client, every response validated against the spec. */
import { type PharosClient, paginate, unwrap } from "@pharos/client";
import { beforeAll, describe, expect, it } from "vitest";
import { itAnswersTheErrorMatrix, itProvokedEveryDocumentedStatus, type Send } from "./cases.ts";
import { deploy, newEnvironment, newProject, newPrompt } from "./fixtures.ts";
import { expectError, expectStatus } from "./replies.ts";
import { useTarget } from "./target.ts";

const use = useTarget();
const run = Math.random().toString(36).slice(2, 8);

/** Reads a project, or every project: what a refused change must leave as it was. */
const readProject = async (client: PharosClient) =>
  unwrap(await client.GET("/projects/{projectId}", { params: { path: { projectId } } }));
const readProjects = async (client: PharosClient) =>
  unwrap(await client.GET("/projects", { params: { query: { limit: 200 } } }));

/** A project made for this file, so writes do not disturb the target's own project. */
let projectId: string;
beforeAll(async () => {
  projectId = unwrap(await use().client.POST("/projects", { body: { title: `Projects ${run}` } })).id;
});

describe("listProjects", () => {
  const send: Send = (client, extra) => client.GET("/projects", { ...extra });

  it("200: lists the key's projects and pages through them with cursors", async () => {
    const t = use();
    const first = await t.client.GET("/projects", { params: { query: { limit: 1 } } });
    expectStatus(first, 200);
    expect(first.data?.pagination).toMatchObject({ limit: 1, returned: 1, hasMore: true });
    const ids: string[] = [];
    for await (const project of paginate(t.client, "GET", "/projects", { params: { query: { limit: 1 } } })) {
      ids.push(project.id);
    }
    expect(ids).toContain(projectId);
    expect(ids).toContain(t.projectId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("200: honours sort and createdAfter", async () => {
    const t = use();
    const newest = unwrap(await t.client.GET("/projects", { params: { query: { limit: 1 } } })).projects[0];
    const oldestFirst = unwrap(
      await t.client.GET("/projects", { params: { query: { limit: 200, sort: "createdAt:asc" } } }),
    );
    expect(oldestFirst.projects.at(-1)?.id).toBe(newest?.id);
    const after = unwrap(
      await t.client.GET("/projects", { params: { query: { createdAfter: newest?.createdAt, limit: 200 } } }),
    );
    expect(after.projects.every((p) => p.createdAt >= (newest?.createdAt ?? 0))).toBe(true);
  });

  it("400 VALIDATION_ERROR for a page size over 200, 400 INVALID_CURSOR for a bad or foreign cursor", async () => {
    const t = use();
    expectError(await t.client.GET("/projects", { params: { query: { limit: 201 } } }), 400, "VALIDATION_ERROR");
    expectError(await t.client.GET("/projects", { params: { query: { cursor: "garbage" } } }), 400, "INVALID_CURSOR");
    const page = unwrap(await t.client.GET("/projects", { params: { query: { limit: 1 } } }));
    const cursor = page.pagination.nextCursor as string;
    expectError(
      await t.client.GET("/projects", { params: { query: { limit: 1, sort: "createdAt:asc", cursor } } }),
      400,
      "INVALID_CURSOR",
    );
  });

  itAnswersTheErrorMatrix(use, { access: "workspace-read", send, hidden: false });
});

describe("createProject", () => {
  const send: Send = (client, extra) => client.POST("/projects", { body: { title: `Created ${run}` }, ...extra });

  it("201: creates a project with the default icon", async () => {
    const created = await use().client.POST("/projects", { body: { title: `New ${run}` } });
    expectStatus(created, 201);
    expect(created.data).toMatchObject({ title: `New ${run}`, icon: { type: "emoji", value: "📁" } });
  });

  it("201: keeps the icon it is given", async () => {
    const icon = { type: "image", value: "https://example.com/icon.png" } as const;
    const created = await use().client.POST("/projects", { body: { title: `Imaged ${run}`, icon } });
    expectStatus(created, 201);
    expect(created.data?.icon).toEqual(icon);
  });

  it("400 VALIDATION_ERROR for a title over 50 characters, an unknown icon type and an unknown field", async () => {
    const { client } = use();
    const tooLong = await client.POST("/projects", { body: { title: "x".repeat(51) } });
    expectError(tooLong, 400, "VALIDATION_ERROR");
    expect(tooLong.error?.error.details?.[0]?.field).toBe("title");
    const badIcon = { title: "t", icon: { type: "svg", value: "x" } } as never;
    expectError(await client.POST("/projects", { body: badIcon }), 400, "VALIDATION_ERROR");
    const extra = { title: "t", colour: "red" } as never;
    expectError(await client.POST("/projects", { body: extra }), 400, "VALIDATION_ERROR");
  });

  itAnswersTheErrorMatrix(use, { access: "workspace-write", send, hidden: false, body: true, unchanged: readProjects });
});

describe("getProject", () => {
  const send: Send = (client, extra, id = projectId) =>
    client.GET("/projects/{projectId}", { params: { path: { projectId: id } }, ...extra });

  it("200: reads a project", async () => {
    const read = await send(use().client, {});
    expectStatus(read, 200);
    expect(read.data).toMatchObject({ id: projectId, title: `Projects ${run}` });
  });

  itAnswersTheErrorMatrix(use, { access: "read", send, unknown: "project" });
});

describe("updateProject", () => {
  const send: Send = (client, extra, id = projectId) =>
    client.PATCH("/projects/{projectId}", {
      params: { path: { projectId: id } },
      body: { title: `Updated ${run}` },
      ...extra,
    });

  it("200: replaces the fields given and keeps the others", async () => {
    const { client } = use();
    const before = unwrap(await client.GET("/projects/{projectId}", { params: { path: { projectId } } }));
    const renamed = await client.PATCH("/projects/{projectId}", {
      params: { path: { projectId } },
      body: { title: `Renamed ${run}` },
    });
    expectStatus(renamed, 200);
    expect(renamed.data).toMatchObject({ title: `Renamed ${run}`, icon: before.icon });
    const iconOnly = await client.PATCH("/projects/{projectId}", {
      params: { path: { projectId } },
      body: { icon: { type: "emoji", value: "🚀" } },
    });
    expectStatus(iconOnly, 200);
    expect(iconOnly.data).toMatchObject({ title: `Renamed ${run}`, icon: { type: "emoji", value: "🚀" } });
    expect(iconOnly.data?.updatedAt).toBeGreaterThanOrEqual(before.updatedAt);
  });

  it("400 VALIDATION_ERROR for an empty update and for an empty title", async () => {
    const { client } = use();
    const path = { projectId };
    expectError(await client.PATCH("/projects/{projectId}", { params: { path }, body: {} }), 400, "VALIDATION_ERROR");
    expectError(
      await client.PATCH("/projects/{projectId}", { params: { path }, body: { title: "" } }),
      400,
      "VALIDATION_ERROR",
    );
  });

  it("200: sets masking rules (placeholders shown) and retention; 400 for an invalid rule or retention", async () => {
    const { client } = use();
    const path = { projectId };
    const saved = await client.PATCH("/projects/{projectId}", {
      params: { path },
      body: { maskingRules: [{ detector: "creditCard" }], retentionDays: 90 },
    });
    expectStatus(saved, 200);
    expect(saved.data).toMatchObject({
      maskingRules: [{ detector: "creditCard", placeholder: "[CREDIT_CARD]" }],
      retentionDays: 90,
    });
    for (const body of [
      { maskingRules: [{ detector: "regex" as const, pattern: "(a)\\1" }] },
      { maskingRules: [{ detector: "regex" as const, pattern: "(" }] },
      { retentionDays: 0 },
    ]) {
      expectError(await client.PATCH("/projects/{projectId}", { params: { path }, body }), 400, "VALIDATION_ERROR");
    }
    const cleared = await client.PATCH("/projects/{projectId}", {
      params: { path },
      body: { maskingRules: [], retentionDays: null },
    });
    expectStatus(cleared, 200);
    expect(cleared.data).toMatchObject({ maskingRules: [], retentionDays: null });
  });

  itAnswersTheErrorMatrix(use, { access: "write", send, unknown: "project", body: true, unchanged: readProject });
});

describe("listDeploymentEnvironments", () => {
  const send: Send = (client, extra, id = projectId) =>
    client.GET("/projects/{projectId}/deployment-environments", { params: { path: { projectId: id } }, ...extra });

  it("200: lists the project's environments and pages through them", async () => {
    const { client } = use();
    for (const name of [`list-a-${run}`, `list-b-${run}`, `list-c-${run}`]) {
      unwrap(
        await client.POST("/projects/{projectId}/deployment-environments", {
          params: { path: { projectId } },
          body: { name },
        }),
      );
    }
    const page = await client.GET("/projects/{projectId}/deployment-environments", {
      params: { path: { projectId }, query: { limit: 2, sort: "createdAt:asc" } },
    });
    expectStatus(page, 200);
    expect(page.data?.pagination).toMatchObject({ limit: 2, returned: 2, hasMore: true });
    const names: string[] = [];
    for await (const environment of paginate(client, "GET", "/projects/{projectId}/deployment-environments", {
      params: { path: { projectId }, query: { limit: 2, sort: "createdAt:asc" } },
    })) {
      expect(environment.projectId).toBe(projectId);
      names.push(environment.name);
    }
    expect(names).toEqual(expect.arrayContaining([`list-a-${run}`, `list-b-${run}`, `list-c-${run}`]));
  });

  it("400 VALIDATION_ERROR for a bad sort, 400 INVALID_CURSOR for a tampered cursor", async () => {
    const { client } = use();
    const params = (query: Record<string, unknown>) => ({ params: { path: { projectId }, query } }) as never;
    expectError(
      await client.GET("/projects/{projectId}/deployment-environments", params({ sort: "name:asc" })),
      400,
      "VALIDATION_ERROR",
    );
    const page = unwrap(await client.GET("/projects/{projectId}/deployment-environments", params({ limit: 1 }))) as {
      pagination: { nextCursor: string };
    };
    expectError(
      await client.GET(
        "/projects/{projectId}/deployment-environments",
        params({ limit: 1, cursor: `${page.pagination.nextCursor}x` }),
      ),
      400,
      "INVALID_CURSOR",
    );
  });

  itAnswersTheErrorMatrix(use, { access: "read", send, unknown: "project" });
});

describe("createDeploymentEnvironment", () => {
  let counter = 0;
  const send: Send = (client, extra, id = projectId) =>
    client.POST("/projects/{projectId}/deployment-environments", {
      params: { path: { projectId: id } },
      body: { name: `env-${run}-${++counter}` },
      ...extra,
    });

  it("201: creates an environment in the project", async () => {
    const created = await use().client.POST("/projects/{projectId}/deployment-environments", {
      params: { path: { projectId } },
      body: { name: `Production ${run}` },
    });
    expectStatus(created, 201);
    expect(created.data).toMatchObject({ projectId, name: `Production ${run}` });
  });

  it("400 VALIDATION_ERROR for an empty name and for a name over 50 characters", async () => {
    const { client } = use();
    for (const name of ["", "x".repeat(51)]) {
      const reply = await client.POST("/projects/{projectId}/deployment-environments", {
        params: { path: { projectId } },
        body: { name },
      });
      expectError(reply, 400, "VALIDATION_ERROR");
    }
  });

  it("409 CONFLICT for a name the project already has, compared case-insensitively", async () => {
    const { client } = use();
    const create = (name: string) =>
      client.POST("/projects/{projectId}/deployment-environments", { params: { path: { projectId } }, body: { name } });
    expectStatus(await create(`Staging ${run}`), 201);
    expectError(await create(`staging ${run}`.toUpperCase()), 409, "CONFLICT");
  });

  itAnswersTheErrorMatrix(use, { access: "write", send, unknown: "project", body: true });
});

describe("deleteDeploymentEnvironment", () => {
  let victim: string;
  beforeAll(async () => {
    victim = (await newEnvironment(use().client, projectId, `Victim ${run}`)).id;
  });
  const send: Send = (client, extra, id = victim, parent = projectId) =>
    client.DELETE("/projects/{projectId}/deployment-environments/{environmentId}", {
      params: { path: { projectId: parent, environmentId: id } },
      ...extra,
    });
  const environmentIds = async (client: PharosClient) =>
    unwrap(
      await client.GET("/projects/{projectId}/deployment-environments", {
        params: { path: { projectId }, query: { limit: 200 } },
      }),
    ).deploymentEnvironments.map((environment) => environment.id);

  it("204: deletes an environment that holds no deployment; it is gone afterwards", async () => {
    const { client } = use();
    const doomed = await newEnvironment(client, projectId, `Doomed ${run}`);
    expectStatus(await send(client, {}, doomed.id), 204);
    expect(await environmentIds(client)).not.toContain(doomed.id);
    expectError(await send(client, {}, doomed.id), 404, "RESOURCE_NOT_FOUND");
  });

  it("409 CONFLICT for an environment that holds a deployment; it and the deployment stay", async () => {
    const { client } = use();
    const held = await newEnvironment(client, projectId, `Held ${run}`);
    const prompt = await newPrompt(client, projectId, { title: `Deployed ${run}` });
    const deployment = await deploy(client, prompt.id, held.id);
    expectError(await send(client, {}, held.id), 409, "CONFLICT");
    expect(await environmentIds(client)).toContain(held.id);
    const kept = await client.GET("/deployments", {
      params: { query: { promptId: prompt.id, deploymentId: deployment.id } },
    });
    expectStatus(kept, 200);
  });

  itAnswersTheErrorMatrix(use, {
    access: "write",
    send,
    unknown: "env",
    elsewhere: { parent: "project", create: async (client) => (await newProject(client, `Other ${run}`)).id },
    unchanged: environmentIds,
  });
});

itProvokedEveryDocumentedStatus(use, [
  "listProjects",
  "createProject",
  "getProject",
  "updateProject",
  "listDeploymentEnvironments",
  "createDeploymentEnvironment",
  "deleteDeploymentEnvironment",
]);
