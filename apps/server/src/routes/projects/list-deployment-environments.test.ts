import { expect, it } from "vitest";
import { describeEachStore } from "../../testing/harness.ts";

describeEachStore("listDeploymentEnvironments", (use) => {
  it("lists the project's environments (200), oldest first with sort=createdAt:asc", async () => {
    const h = use();
    const path = `/projects/${h.projectId}/deployment-environments`;
    for (const name of ["Production", "Staging"]) {
      expect((await h.request("POST", path, { body: { name } })).status).toBe(201);
    }
    const list = await h.request("GET", `${path}?sort=createdAt:asc`);
    expect(list.status).toBe(200);
    expect(list.body.deploymentEnvironments.map((e: { name: string }) => e.name)).toEqual(["Production", "Staging"]);
  });
});
