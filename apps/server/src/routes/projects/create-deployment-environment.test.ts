import { expect, it } from "vitest";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";

describeEachStore("createDeploymentEnvironment", (use) => {
  it("creates an environment (201) and refuses a duplicate name case-insensitively (409)", async () => {
    const h = use();
    const path = `/projects/${h.projectId}/deployment-environments`;
    const created = await h.request("POST", path, { body: { name: "Production" } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ projectId: h.projectId, name: "Production" });
    expect(created.body.id).toMatch(/^env_/);
    await expectError(await h.request("POST", path, { body: { name: "production" } }), 409, "CONFLICT");
  });
});
