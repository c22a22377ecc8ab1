import { expect, it } from "vitest";
import { describeEachStore } from "../../testing/harness.ts";

describeEachStore("updateProject", (use) => {
  it("updates title and icon (200); updatedAt moves", async () => {
    const h = use();
    const { body: project } = await h.request("POST", "/projects", { body: { title: "Old" } });
    const updated = await h.request("PATCH", `/projects/${project.id}`, {
      body: { title: "New", icon: { type: "emoji", value: "🚀" } },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ title: "New", icon: { value: "🚀" } });
    expect(updated.body.updatedAt).toBeGreaterThan(project.updatedAt);
  });
});
