import { expect, it } from "vitest";
import { createEnvironment, deploy, deployed, MISSING_ENV } from "../../testing/deployment-fixtures.ts";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";
import { createPrompt, newProject } from "../../testing/prompt-fixtures.ts";

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

  it("answers 404 for an environment not in the prompt's project", async () => {
    const h = use();
    const prompt = await createPrompt(h);
    const foreignEnv = await createEnvironment(h, await newProject(h));
    for (const env of [MISSING_ENV, foreignEnv]) {
      await expectError(
        await h.request("GET", `/prompts/${prompt.id}/deployments?deploymentEnvironmentId=${env}`),
        404,
        "RESOURCE_NOT_FOUND",
      );
    }
  });
});
