import { expect, it } from "vitest";
import { describeEachStore } from "../../testing/harness.ts";
import {
  expectError,
  itHidesOtherWorkspaces,
  itRejectsMalformedJson,
  itRejectsMissingAndInvalidKeys,
} from "../../testing/shared-cases.ts";
import { createEnvironment, createPrompt, deploy, deployed, keyId, newProject, text } from "./deployment-fixtures.ts";

const MISSING_PROMPT = `prompt_${"0".repeat(26)}`;
const MISSING_DEPLOYMENT = `deployment_${"0".repeat(26)}`;
const MISSING_ENV = `env_${"0".repeat(26)}`;

describeEachStore("deployments round trip", (use) => {
  it("deploys, reads by id and by latest, redeploys an edited draft; the old deployment stays readable", async () => {
    const h = use();
    const prompt = await createPrompt(h, {
      title: "Support",
      draft: {
        config: { provider: "openai", model: "gpt-4o-mini", settings: { temperature: 0.2 } },
        messages: [
          { role: "system", content: [text("You are a support agent for {{company}}.")] },
          {
            role: "user",
            content: [
              text("{{question}}"),
              { modality: "image", detail: "auto", value: { type: "url", url: "{{photo}}" } },
            ],
          },
        ],
      },
    });
    const environmentId = await createEnvironment(h);

    const first = await h.request("POST", `/prompts/${prompt.id}/deployments`, {
      body: { deploymentEnvironmentId: environmentId },
    });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      id: expect.stringMatching(/^deployment_[0-9A-Z]{26}$/),
      createdAt: expect.any(Number),
      updatedAt: first.body.createdAt,
      createdByUserId: keyId(h.key),
      updatedByUserId: keyId(h.key),
      projectId: h.projectId,
      promptId: prompt.id,
      deploymentEnvironmentId: environmentId,
      prompt: {
        config: { providerName: "openai", model: "gpt-4o-mini", settings: { temperature: 0.2 } },
        messages: prompt.draft.messages,
        tools: [],
        variables: [
          { name: "company", modality: "text" },
          { name: "question", modality: "text" },
          { name: "photo", modality: "image" },
        ],
      },
    });

    const byId = await h.request("GET", `/deployments?promptId=${prompt.id}&deploymentId=${first.body.id}`);
    expect(byId.status).toBe(200);
    expect(byId.body).toEqual(first.body);
    const latest = await h.request(
      "GET",
      `/deployments?promptId=${prompt.id}&deploymentId=latest&deploymentEnvironmentId=${environmentId}`,
    );
    expect(latest.body).toEqual(first.body);

    const edited = await h.request("PATCH", `/prompts/${prompt.id}`, {
      body: { messages: [{ role: "user", content: [text("Order {{order_id}}?")] }] },
    });
    expect(edited.status).toBe(200);
    // The deployment is a snapshot: editing the draft does not change it.
    expect((await h.request("GET", `/deployments?promptId=${prompt.id}&deploymentId=${first.body.id}`)).body).toEqual(
      first.body,
    );

    const second = await deploy(h, prompt.id, environmentId);
    expect(second.id).not.toBe(first.body.id);
    expect(second.prompt.messages).toEqual([{ role: "user", content: [text("Order {{order_id}}?")] }]);
    expect(second.prompt.variables).toEqual([{ name: "order_id", modality: "text" }]);
    for (const synonym of ["latest", "current"]) {
      const now = await h.request(
        "GET",
        `/deployments?promptId=${prompt.id}&deploymentId=${synonym}&deploymentEnvironmentId=${environmentId}`,
      );
      expect(now.body).toEqual(second);
    }
    const old = await h.request(
      "GET",
      `/deployments?promptId=${prompt.id}&deploymentId=${first.body.id}&deploymentEnvironmentId=${environmentId}`,
    );
    expect(old.body).toEqual(first.body);
  });
});

describeEachStore("createDeployment", (use) => {
  it("snapshots an incomplete configuration, leaving out null provider, providerId and model", async () => {
    const h = use();
    const environmentId = await createEnvironment(h);
    const bare = await createPrompt(h);
    expect((await deploy(h, bare.id, environmentId)).prompt).toEqual({
      config: { settings: {} },
      messages: [],
      tools: [],
      variables: [],
    });
    const provider = await h.request("POST", "/providers", {
      body: { provider: "openai-compatible", displayName: "Local", baseUrl: "http://127.0.0.1:11434/v1" },
    });
    const providerId = provider.body.id as string;
    const pinned = await createPrompt(h, {
      draft: {
        config: { providerId, settings: { maxTokens: 5 } },
        tools: [{ type: "function", definition: { schema: { name: "f", description: "d" } } }],
      },
    });
    // The provider's kind comes from the pinned record.
    expect((await deploy(h, pinned.id, environmentId)).prompt).toEqual({
      config: { providerName: "openai-compatible", providerId, settings: { maxTokens: 5 } },
      messages: [],
      tools: [{ type: "function", definition: { schema: { name: "f", description: "d" } }, request: null }],
      variables: [],
    });
  });

  it("records the deploying key as createdByUserId", async () => {
    const h = use();
    const prompt = await createPrompt(h);
    const environmentId = await createEnvironment(h);
    const key = await h.newKey("full", [h.projectId]);
    const reply = await h.request("POST", `/prompts/${prompt.id}/deployments`, {
      key,
      body: { deploymentEnvironmentId: environmentId },
    });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ createdByUserId: keyId(key), updatedByUserId: keyId(key) });
  });

  it("answers 404 for an unknown prompt, an unknown environment and an environment of another project", async () => {
    const h = use();
    const prompt = await createPrompt(h);
    const foreignEnv = await createEnvironment(h, await newProject(h));
    const environmentId = await createEnvironment(h);
    await expectError(
      await h.request("POST", `/prompts/${MISSING_PROMPT}/deployments`, {
        body: { deploymentEnvironmentId: environmentId },
      }),
      404,
      "RESOURCE_NOT_FOUND",
    );
    for (const deploymentEnvironmentId of [MISSING_ENV, foreignEnv]) {
      await expectError(
        await h.request("POST", `/prompts/${prompt.id}/deployments`, { body: { deploymentEnvironmentId } }),
        404,
        "RESOURCE_NOT_FOUND",
      );
    }
    const list = await h.request("GET", `/prompts/${prompt.id}/deployments`);
    expect(list.body.deployments).toEqual([]);
  });

  it("rejects a missing, malformed or extra field with 400", async () => {
    const h = use();
    const prompt = await createPrompt(h);
    const environmentId = await createEnvironment(h);
    for (const body of [
      {},
      { deploymentEnvironmentId: "env_short" },
      { deploymentEnvironmentId: environmentId, note: "x" },
    ]) {
      await expectError(
        await h.request("POST", `/prompts/${prompt.id}/deployments`, { body }),
        400,
        "VALIDATION_ERROR",
      );
    }
    await expectError(
      await h.request("POST", "/prompts/prompt_short/deployments", {
        body: { deploymentEnvironmentId: environmentId },
      }),
      400,
      "VALIDATION_ERROR",
    );
  });

  it("answers 403 to read-only, ingest-only and restricted keys", async () => {
    const h = use();
    const prompt = await createPrompt(h);
    const environmentId = await createEnvironment(h);
    const restricted = await h.newKey("full", [await newProject(h)]);
    for (const key of [await h.newKey("read-only"), await h.newKey("ingest-only"), restricted]) {
      await expectError(
        await h.request("POST", `/prompts/${prompt.id}/deployments`, {
          key,
          body: { deploymentEnvironmentId: environmentId },
        }),
        403,
        "FORBIDDEN",
      );
    }
  });

  itRejectsMissingAndInvalidKeys(use, {
    method: "POST",
    path: async (h) => `/prompts/${(await createPrompt(h)).id}/deployments`,
    body: () => ({ deploymentEnvironmentId: MISSING_ENV }),
  });
  itHidesOtherWorkspaces(use, {
    method: "POST",
    path: async (h) => {
      const prompt = await createPrompt(h);
      return `/prompts/${prompt.id}/deployments`;
    },
    body: () => ({ deploymentEnvironmentId: MISSING_ENV }),
  });
  itRejectsMalformedJson(use, {
    method: "POST",
    path: async (h) => `/prompts/${(await createPrompt(h)).id}/deployments`,
  });
});

describeEachStore("getDeployment", (use) => {
  it("answers 400 VALIDATION_ERROR for each malformed query", async () => {
    const h = use();
    const { promptId, environmentId, deploymentId } = await deployed(h);
    const cases: [string, string][] = [
      [`deploymentId=${deploymentId}`, "query.promptId"],
      [`promptId=${promptId}`, "query.deploymentId"],
      [`promptId=${promptId}&deploymentId=newest&deploymentEnvironmentId=${environmentId}`, "query.deploymentId"],
      [`promptId=${promptId}&deploymentId=deployment_short`, "query.deploymentId"],
      [`promptId=${promptId}&deploymentId=${"d".repeat(81)}`, "query.deploymentId"],
      [`promptId=${promptId}&deploymentId=latest`, "query.deploymentEnvironmentId"],
      [`promptId=${promptId}&deploymentId=current`, "query.deploymentEnvironmentId"],
      [`promptId=${promptId}&deploymentId=latest&deploymentEnvironmentId=env_short`, "query.deploymentEnvironmentId"],
      [
        `promptId=${promptId}&deploymentId=${deploymentId}&deploymentEnvironmentId=env_short`,
        "query.deploymentEnvironmentId",
      ],
      [`promptId=prompt_short&deploymentId=${deploymentId}`, "query.promptId"],
    ];
    for (const [query, field] of cases) {
      const reply = await h.request("GET", `/deployments?${query}`);
      await expectError(reply, 400, "VALIDATION_ERROR");
      expect(
        reply.body.error.details.map((d: { field: string }) => d.field),
        query,
      ).toContain(field);
    }
  });

  it("answers 404 RESOURCE_NOT_FOUND for each case of its description", async () => {
    const h = use();
    const { promptId, environmentId, deploymentId } = await deployed(h);
    const other = await deployed(h);
    const secondEnv = await createEnvironment(h);
    const foreignEnv = await createEnvironment(h, await newProject(h));
    const cases = [
      // the prompt does not exist
      `promptId=${MISSING_PROMPT}&deploymentId=${deploymentId}`,
      `promptId=${MISSING_PROMPT}&deploymentId=latest&deploymentEnvironmentId=${environmentId}`,
      // the id names no deployment of this prompt
      `promptId=${promptId}&deploymentId=${MISSING_DEPLOYMENT}`,
      `promptId=${promptId}&deploymentId=${other.deploymentId}`,
      // the id is a deployment of the prompt but in another environment than the one given
      `promptId=${promptId}&deploymentId=${deploymentId}&deploymentEnvironmentId=${secondEnv}`,
      // latest: an unknown environment, one of another project, one the prompt was never deployed to
      `promptId=${promptId}&deploymentId=latest&deploymentEnvironmentId=${MISSING_ENV}`,
      `promptId=${promptId}&deploymentId=latest&deploymentEnvironmentId=${foreignEnv}`,
      `promptId=${promptId}&deploymentId=current&deploymentEnvironmentId=${secondEnv}`,
    ];
    for (const query of cases) {
      await expectError(await h.request("GET", `/deployments?${query}`), 404, "RESOURCE_NOT_FOUND");
    }
  });

  it("keeps environments apart: latest is per environment", async () => {
    const h = use();
    const prompt = await createPrompt(h);
    const staging = await createEnvironment(h);
    const production = await createEnvironment(h);
    const inStaging = await deploy(h, prompt.id, staging);
    const inProduction = await deploy(h, prompt.id, production);
    const latestOf = async (env: string) =>
      (await h.request("GET", `/deployments?promptId=${prompt.id}&deploymentId=latest&deploymentEnvironmentId=${env}`))
        .body.id;
    expect(await latestOf(staging)).toBe(inStaging.id);
    expect(await latestOf(production)).toBe(inProduction.id);
  });

  it("serves ingest-only and read-only keys, and answers 403 to a key restricted to other projects", async () => {
    const h = use();
    const { promptId, environmentId, deploymentId } = await deployed(h);
    const path = `/deployments?promptId=${promptId}&deploymentId=latest&deploymentEnvironmentId=${environmentId}`;
    for (const role of ["ingest-only", "read-only"] as const) {
      const reply = await h.request("GET", path, { key: await h.newKey(role, [h.projectId]) });
      expect(reply.status).toBe(200);
      expect(reply.body.id).toBe(deploymentId);
    }
    const restricted = await h.newKey("ingest-only", [await newProject(h)]);
    await expectError(await h.request("GET", path, { key: restricted }), 403, "FORBIDDEN");
  });

  itRejectsMissingAndInvalidKeys(use, {
    method: "GET",
    path: async (h) => {
      const { promptId, deploymentId } = await deployed(h);
      return `/deployments?promptId=${promptId}&deploymentId=${deploymentId}`;
    },
  });
  itHidesOtherWorkspaces(use, {
    method: "GET",
    path: async (h) => {
      const { promptId, deploymentId } = await deployed(h);
      return `/deployments?promptId=${promptId}&deploymentId=${deploymentId}`;
    },
  });
  itHidesOtherWorkspaces(use, {
    method: "GET",
    path: async (h) => {
      const { promptId, environmentId } = await deployed(h);
      return `/deployments?promptId=${promptId}&deploymentId=latest&deploymentEnvironmentId=${environmentId}`;
    },
  });
});

describeEachStore("listDeployments", (use) => {
  it("lists the prompt's deployments newest first, paginated, optionally of one environment", async () => {
    const h = use();
    const prompt = await createPrompt(h);
    const staging = await createEnvironment(h);
    const production = await createEnvironment(h);
    const ids = [];
    for (const env of [staging, production, staging]) ids.push((await deploy(h, prompt.id, env)).id);
    await deployed(h); // another prompt's deployment

    const all = await h.request("GET", `/prompts/${prompt.id}/deployments`);
    expect(all.status).toBe(200);
    expect(all.body.deployments.map((d: { id: string }) => d.id)).toEqual([...ids].reverse());
    expect(all.body.pagination).toEqual({ limit: 50, returned: 3, hasMore: false, nextCursor: null });
    expect(all.body.deployments[0]).toEqual(
      (await h.request("GET", `/deployments?promptId=${prompt.id}&deploymentId=${ids[2]}`)).body,
    );

    const first = await h.request(
      "GET",
      `/prompts/${prompt.id}/deployments?deploymentEnvironmentId=${staging}&limit=1`,
    );
    expect(first.body.deployments.map((d: { id: string }) => d.id)).toEqual([ids[2]]);
    expect(first.body.pagination).toMatchObject({ returned: 1, hasMore: true });
    const cursor = first.body.pagination.nextCursor;
    const second = await h.request(
      "GET",
      `/prompts/${prompt.id}/deployments?deploymentEnvironmentId=${staging}&limit=1&cursor=${cursor}`,
    );
    expect(second.body.deployments.map((d: { id: string }) => d.id)).toEqual([ids[0]]);
    expect(second.body.pagination.hasMore).toBe(false);

    const asc = await h.request("GET", `/prompts/${prompt.id}/deployments?sort=createdAt:asc`);
    expect(asc.body.deployments.map((d: { id: string }) => d.id)).toEqual(ids);
    const at = asc.body.deployments[1].createdAt;
    const range = await h.request("GET", `/prompts/${prompt.id}/deployments?createdAfter=${at}&createdBefore=${at}`);
    expect(range.body.deployments.map((d: { id: string }) => d.id)).toEqual([ids[1]]);

    // A cursor belongs to its query: another environment filter is INVALID_CURSOR.
    await expectError(
      await h.request(
        "GET",
        `/prompts/${prompt.id}/deployments?deploymentEnvironmentId=${production}&limit=1&cursor=${cursor}`,
      ),
      400,
      "INVALID_CURSOR",
    );
  });

  it("answers 404 for an unknown prompt and for an environment not in the prompt's project; 400 for bad params", async () => {
    const h = use();
    const prompt = await createPrompt(h);
    const foreignEnv = await createEnvironment(h, await newProject(h));
    await expectError(await h.request("GET", `/prompts/${MISSING_PROMPT}/deployments`), 404, "RESOURCE_NOT_FOUND");
    for (const env of [MISSING_ENV, foreignEnv]) {
      await expectError(
        await h.request("GET", `/prompts/${prompt.id}/deployments?deploymentEnvironmentId=${env}`),
        404,
        "RESOURCE_NOT_FOUND",
      );
    }
    for (const query of ["deploymentEnvironmentId=env_short", "limit=0", "limit=201", "sort=name"]) {
      await expectError(await h.request("GET", `/prompts/${prompt.id}/deployments?${query}`), 400, "VALIDATION_ERROR");
    }
  });

  it("answers 403 to ingest-only and restricted keys and serves read-only keys", async () => {
    const h = use();
    const { promptId } = await deployed(h);
    const restricted = await h.newKey("full", [await newProject(h)]);
    for (const key of [await h.newKey("ingest-only"), restricted]) {
      await expectError(await h.request("GET", `/prompts/${promptId}/deployments`, { key }), 403, "FORBIDDEN");
    }
    const readOnly = await h.newKey("read-only");
    expect((await h.request("GET", `/prompts/${promptId}/deployments`, { key: readOnly })).status).toBe(200);
  });

  itRejectsMissingAndInvalidKeys(use, {
    method: "GET",
    path: async (h) => `/prompts/${(await deployed(h)).promptId}/deployments`,
  });
  itHidesOtherWorkspaces(use, {
    method: "GET",
    path: async (h) => `/prompts/${(await deployed(h)).promptId}/deployments`,
  });
});
