import { expect, it } from "vitest";
import {
  createEnvironment,
  deploy,
  keyId,
  MISSING_DEPLOYMENT,
  MISSING_ENV,
} from "../../testing/deployment-fixtures.ts";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";
import { createPrompt, MISSING_PROMPT, newProject, text } from "../../testing/prompt-fixtures.ts";

describeEachStore("createDeployment", (use) => {
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

  it("rolls back with sourceDeploymentId: the earlier snapshot is deployed again and the draft is left alone", async () => {
    const h = use();
    const prompt = await createPrompt(h, { draft: { messages: [{ role: "user", content: [text("First {{a}}")] }] } });
    const environmentId = await createEnvironment(h);
    const first = await deploy(h, prompt.id, environmentId);
    const edited = [{ role: "user", content: [text("Second {{b}}")] }];
    await h.request("PATCH", `/prompts/${prompt.id}`, { body: { messages: edited } });
    await deploy(h, prompt.id, environmentId);

    const rollback = await h.request("POST", `/prompts/${prompt.id}/deployments`, {
      body: { deploymentEnvironmentId: environmentId, sourceDeploymentId: first.id },
    });

    expect(rollback.status).toBe(201);
    expect(rollback.body.id).not.toBe(first.id);
    expect(rollback.body.prompt).toEqual(first.prompt);
    const latest = await h.request(
      "GET",
      `/deployments?promptId=${prompt.id}&deploymentId=latest&deploymentEnvironmentId=${environmentId}`,
    );
    expect(latest.body.id).toBe(rollback.body.id);
    expect((await h.request("GET", `/prompts/${prompt.id}/draft`)).body.messages).toEqual(edited);
  });

  it("answers 404 for a source deployment that is unknown or of another prompt", async () => {
    const h = use();
    const prompt = await createPrompt(h);
    const other = await createPrompt(h);
    const environmentId = await createEnvironment(h);
    const othersDeployment = await deploy(h, other.id, environmentId);
    for (const sourceDeploymentId of [MISSING_DEPLOYMENT, othersDeployment.id]) {
      await expectError(
        await h.request("POST", `/prompts/${prompt.id}/deployments`, {
          body: { deploymentEnvironmentId: environmentId, sourceDeploymentId },
        }),
        404,
        "RESOURCE_NOT_FOUND",
      );
    }
    expect((await h.request("GET", `/prompts/${prompt.id}/deployments`)).body.deployments).toEqual([]);
  });
});
