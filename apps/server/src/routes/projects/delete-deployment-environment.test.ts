import { expect, it } from "vitest";
import { createEnvironment, deploy, MISSING_ENV } from "../../testing/deployment-fixtures.ts";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";
import { createPrompt, newProject } from "../../testing/prompt-fixtures.ts";

describeEachStore("deleteDeploymentEnvironment", (use) => {
  const environments = async (h: ReturnType<typeof use>) =>
    (await h.request("GET", `/projects/${h.projectId}/deployment-environments`)).body.deploymentEnvironments.map(
      (environment: { id: string }) => environment.id,
    );

  it("deletes an empty environment (204); its name is free again and a second delete is 404", async () => {
    const h = use();
    const path = `/projects/${h.projectId}/deployment-environments`;
    const { body: staging } = await h.request("POST", path, { body: { name: "Staging" } });
    const deleted = await h.request("DELETE", `${path}/${staging.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBe("");
    expect(await environments(h)).not.toContain(staging.id);
    expect((await h.request("POST", path, { body: { name: "staging" } })).status).toBe(201);
    await expectError(await h.request("DELETE", `${path}/${staging.id}`), 404, "RESOURCE_NOT_FOUND");
  });

  it("refuses an environment that holds deployments (409), keeping it and its deployments", async () => {
    const h = use();
    const prompt = await createPrompt(h);
    const environmentId = await createEnvironment(h);
    const deployment = await deploy(h, prompt.id, environmentId);
    const reply = await h.request("DELETE", `/projects/${h.projectId}/deployment-environments/${environmentId}`);
    await expectError(reply, 409, "CONFLICT");
    expect(await environments(h)).toContain(environmentId);
    const kept = await h.request("GET", `/deployments?promptId=${prompt.id}&deploymentId=${deployment.id}`);
    expect(kept.status).toBe(200);
  });

  it("needs a full key (403 for read-only, ingest-only and a key of other projects); another project's environment is 404", async () => {
    const h = use();
    const environmentId = await createEnvironment(h);
    const path = `/projects/${h.projectId}/deployment-environments/${environmentId}`;
    const other = await newProject(h);
    const keys = [await h.newKey("read-only"), await h.newKey("ingest-only"), await h.newKey("full", [other])];
    for (const key of keys) await expectError(await h.request("DELETE", path, { key }), 403, "FORBIDDEN");
    await expectError(
      await h.request("DELETE", `/projects/${other}/deployment-environments/${environmentId}`),
      404,
      "RESOURCE_NOT_FOUND",
    );
    await expectError(
      await h.request("DELETE", `/projects/${h.projectId}/deployment-environments/${MISSING_ENV}`),
      404,
      "RESOURCE_NOT_FOUND",
    );
    expect(await environments(h)).toContain(environmentId);
  });
});
