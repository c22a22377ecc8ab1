/** Deployments through the client, every response validated against the spec. */
import { paginate, unwrap } from "@pharos/client";
import { beforeAll, describe, expect, it } from "vitest";
import { errorMatrixOf, itProvokedEveryDocumentedStatus, type Send } from "./cases.ts";
import {
  deploy,
  fullDraft,
  newEnvironment,
  newProject,
  newPrompt,
  runTag,
  type Schemas,
  text,
  unknownId,
} from "./fixtures.ts";
import { expectError, expectStatus } from "./replies.ts";
import { useTarget } from "./target.ts";

const use = useTarget();
const itAnswersTheErrorMatrix = errorMatrixOf(use, () => projectId);
const run = runTag();

let projectId: string;
let prompt: Schemas["Prompt"];
let production: Schemas["DeploymentEnvironment"];
let staging: Schemas["DeploymentEnvironment"];
/** An environment of another project of the workspace. */
let foreignEnvironment: Schemas["DeploymentEnvironment"];
/** The first deployment of `prompt` to production. */
let first: Schemas["Deployment"];

beforeAll(async () => {
  const { client } = use();
  projectId = (await newProject(client, `Deployments ${run}`)).id;
  prompt = await newPrompt(client, projectId, { title: `Deployed ${run}`, draft: fullDraft });
  production = await newEnvironment(client, projectId, "production");
  staging = await newEnvironment(client, projectId, "staging");
  const elsewhere = (await newProject(client, `Elsewhere ${run}`)).id;
  foreignEnvironment = await newEnvironment(client, elsewhere, "production");
  first = await deploy(client, prompt.id, production.id);
});

describe("createDeployment", () => {
  const send: Send = (client, extra) =>
    client.POST("/prompts/{promptId}/deployments", {
      params: { path: { promptId: prompt.id } },
      body: { deploymentEnvironmentId: staging.id },
      ...extra,
    });

  it("201: snapshots the draft with its variables as an array", async () => {
    const created = await send(use().client, {});
    expectStatus(created, 201);
    const deployment = created.data as Schemas["Deployment"];
    expect(deployment).toMatchObject({ promptId: prompt.id, projectId, deploymentEnvironmentId: staging.id });
    expect(deployment.prompt.messages).toEqual(prompt.draft.messages);
    expect(deployment.prompt.config).toMatchObject({ providerName: "openai", model: "gpt-4o-mini" });
    expect(deployment.prompt.variables).toEqual(
      expect.arrayContaining([
        { name: "product", modality: "text" },
        { name: "question", modality: "text" },
      ]),
    );
  });

  it("201: deploys an incomplete configuration, and the snapshot does not change with the draft", async () => {
    const { client } = use();
    const bare = await newPrompt(client, projectId, { title: "Bare" });
    const snapshot = await deploy(client, bare.id, production.id);
    expect(snapshot.prompt.config).not.toHaveProperty("model");
    unwrap(
      await client.PATCH("/prompts/{promptId}", {
        params: { path: { promptId: bare.id } },
        body: { messages: [{ role: "user", content: [text("changed")] }] },
      }),
    );
    const again = await client.GET("/deployments", {
      params: { query: { promptId: bare.id, deploymentId: snapshot.id } },
    });
    expect(again.data).toEqual(snapshot);
  });

  it("400 VALIDATION_ERROR for a missing, short or extra field and for a short prompt id", async () => {
    const { client } = use();
    const path = { promptId: prompt.id };
    for (const body of [{}, { deploymentEnvironmentId: "env_1" }, { deploymentEnvironmentId: staging.id, note: "x" }]) {
      const reply = await client.POST("/prompts/{promptId}/deployments", { params: { path }, body: body as never });
      expectError(reply, 400, "VALIDATION_ERROR");
    }
    const short = await client.POST("/prompts/{promptId}/deployments", {
      params: { path: { promptId: "prompt_1" } },
      body: { deploymentEnvironmentId: staging.id },
    });
    expectError(short, 400, "VALIDATION_ERROR");
  });

  it("404 RESOURCE_NOT_FOUND for an unknown prompt, an unknown environment and one of another project", async () => {
    const { client } = use();
    const create = (promptId: string, deploymentEnvironmentId: string) =>
      client.POST("/prompts/{promptId}/deployments", {
        params: { path: { promptId } },
        body: { deploymentEnvironmentId },
      });
    expectError(await create(unknownId("prompt"), production.id), 404, "RESOURCE_NOT_FOUND");
    expectError(await create(prompt.id, unknownId("env")), 404, "RESOURCE_NOT_FOUND");
    expectError(await create(prompt.id, foreignEnvironment.id), 404, "RESOURCE_NOT_FOUND");
  });

  itAnswersTheErrorMatrix({ access: "write", send, body: true });
});

describe("getDeployment", () => {
  const send: Send = (client, extra) =>
    client.GET("/deployments", { params: { query: { promptId: prompt.id, deploymentId: first.id } }, ...extra });
  const get = (query: Record<string, string | undefined>) =>
    use().client.GET("/deployments", { params: { query } as never });

  it("200: reads a deployment by id", async () => {
    const read = await send(use().client, {});
    expectStatus(read, 200);
    expect(read.data).toEqual(first);
  });

  it("200: reads the environment's latest deployment with latest and with current", async () => {
    const { client } = use();
    const newer = await deploy(client, prompt.id, production.id);
    for (const deploymentId of ["latest", "current"] as const) {
      const read = await client.GET("/deployments", {
        params: { query: { promptId: prompt.id, deploymentId, deploymentEnvironmentId: production.id } },
      });
      expectStatus(read, 200);
      expect(read.data?.id).toBe(newer.id);
    }
  });

  it("200 with a strong ETag and Cache-Control: private, no-cache; 304 with no body when If-None-Match lists it", async () => {
    const { client } = use();
    const read = await send(client, {});
    expectStatus(read, 200);
    const etag = read.response.headers.get("ETag");
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(read.response.headers.get("Cache-Control")).toBe("private, no-cache");

    for (const ifNoneMatch of [etag as string, `W/${etag}`, `"elsewhere", ${etag}`, "*"]) {
      const confirmed = await send(client, { headers: { "If-None-Match": ifNoneMatch } });
      expectStatus(confirmed, 304);
      expect(await confirmed.response.clone().text(), ifNoneMatch).toBe("");
      expect(confirmed.response.headers.get("ETag")).toBe(etag);
    }
    const changed = await send(client, { headers: { "If-None-Match": '"elsewhere"' } });
    expectStatus(changed, 200);
    expect(changed.data).toEqual(first);
  });

  it("200 again with a new ETag once a newer deployment is the environment's latest", async () => {
    const { client } = use();
    const environment = await newEnvironment(client, projectId, `revalidated ${run}`);
    await deploy(client, prompt.id, environment.id);
    const query = { promptId: prompt.id, deploymentId: "latest" as const, deploymentEnvironmentId: environment.id };
    const before = await client.GET("/deployments", { params: { query } });
    const etag = before.response.headers.get("ETag") as string;
    const newer = await deploy(client, prompt.id, environment.id);

    const after = await client.GET("/deployments", { params: { query, header: { "If-None-Match": etag } } });

    expectStatus(after, 200);
    expect(after.data?.id).toBe(newer.id);
    expect(after.response.headers.get("ETag")).not.toBe(etag);
  });

  it("400 VALIDATION_ERROR for each malformed query of the description", async () => {
    const cases = [
      { deploymentId: first.id },
      { promptId: prompt.id },
      { promptId: prompt.id, deploymentId: "newest" },
      { promptId: prompt.id, deploymentId: "latest" },
      { promptId: prompt.id, deploymentId: "current" },
      { promptId: prompt.id, deploymentId: first.id, deploymentEnvironmentId: "env_1" },
      { promptId: "prompt_1", deploymentId: first.id },
    ];
    for (const query of cases) expectError(await get(query), 400, "VALIDATION_ERROR");
  });

  it("404 RESOURCE_NOT_FOUND for each case of the description", async () => {
    const { client } = use();
    const other = await newPrompt(client, projectId, { title: "Other" });
    const otherDeployment = await deploy(client, other.id, production.id);
    const never = await newEnvironment(client, projectId, `never-${run}`);
    const cases = [
      { promptId: unknownId("prompt"), deploymentId: first.id },
      { promptId: prompt.id, deploymentId: unknownId("deployment") },
      { promptId: prompt.id, deploymentId: otherDeployment.id },
      { promptId: prompt.id, deploymentId: first.id, deploymentEnvironmentId: staging.id },
      { promptId: prompt.id, deploymentId: "latest", deploymentEnvironmentId: unknownId("env") },
      { promptId: prompt.id, deploymentId: "latest", deploymentEnvironmentId: foreignEnvironment.id },
      { promptId: prompt.id, deploymentId: "current", deploymentEnvironmentId: never.id },
    ];
    for (const query of cases) expectError(await get(query), 404, "RESOURCE_NOT_FOUND");
  });

  itAnswersTheErrorMatrix({ access: "deployment-read", send });
});

describe("listDeployments", () => {
  const send: Send = (client, extra) =>
    client.GET("/prompts/{promptId}/deployments", { params: { path: { promptId: prompt.id } }, ...extra });

  it("200: lists the prompt's deployments newest first, pages through them, and filters by environment", async () => {
    const { client } = use();
    const listed = await newPrompt(client, projectId, { title: "Listed" });
    const made = [
      await deploy(client, listed.id, production.id),
      await deploy(client, listed.id, staging.id),
      await deploy(client, listed.id, production.id),
    ];
    const page = await client.GET("/prompts/{promptId}/deployments", {
      params: { path: { promptId: listed.id }, query: { limit: 2 } },
    });
    expectStatus(page, 200);
    expect(page.data?.deployments.map((d) => d.id)).toEqual([made[2]?.id, made[1]?.id]);
    const all = [];
    for await (const d of paginate(client, "GET", "/prompts/{promptId}/deployments", {
      params: { path: { promptId: listed.id }, query: { limit: 1 } },
    })) {
      all.push(d.id);
    }
    expect(all).toEqual(made.map((d) => d.id).reverse());
    const onlyProduction = unwrap(
      await client.GET("/prompts/{promptId}/deployments", {
        params: { path: { promptId: listed.id }, query: { deploymentEnvironmentId: production.id } },
      }),
    );
    expect(onlyProduction.deployments.map((d) => d.id)).toEqual([made[2]?.id, made[0]?.id]);
  });

  it("400 VALIDATION_ERROR for a limit of 0 or 201, a bad sort and a short environment id; 400 INVALID_CURSOR for a foreign cursor", async () => {
    const { client } = use();
    const path = { promptId: prompt.id };
    for (const query of [{ limit: 0 }, { limit: 201 }, { sort: "name" }, { deploymentEnvironmentId: "env_1" }]) {
      const reply = await client.GET("/prompts/{promptId}/deployments", { params: { path, query } as never });
      expectError(reply, 400, "VALIDATION_ERROR");
    }
    await deploy(client, prompt.id, production.id);
    const page = unwrap(await client.GET("/prompts/{promptId}/deployments", { params: { path, query: { limit: 1 } } }));
    const cursor = page.pagination.nextCursor as string;
    const foreign = await client.GET("/prompts/{promptId}/deployments", {
      params: { path, query: { limit: 1, cursor, deploymentEnvironmentId: production.id } },
    });
    expectError(foreign, 400, "INVALID_CURSOR");
  });

  it("404 RESOURCE_NOT_FOUND for an unknown prompt and for an environment outside the prompt's project", async () => {
    const { client } = use();
    const unknown = await client.GET("/prompts/{promptId}/deployments", {
      params: { path: { promptId: unknownId("prompt") } },
    });
    expectError(unknown, 404, "RESOURCE_NOT_FOUND");
    for (const deploymentEnvironmentId of [unknownId("env"), foreignEnvironment.id]) {
      const reply = await client.GET("/prompts/{promptId}/deployments", {
        params: { path: { promptId: prompt.id }, query: { deploymentEnvironmentId } },
      });
      expectError(reply, 404, "RESOURCE_NOT_FOUND");
    }
  });

  itAnswersTheErrorMatrix({ access: "read", send });
});

itProvokedEveryDocumentedStatus(use, ["getDeployment", "listDeployments", "createDeployment"]);
