import { expect, it } from "vitest";
import { describeEachStore } from "../../testing/harness.ts";

describeEachStore("createProject", (use) => {
  it("creates a project (201) with a default icon and reads it back", async () => {
    const h = use();
    const created = await h.request("POST", "/projects", { body: { title: "Support" } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ title: "Support", icon: { type: "emoji", value: "📁" } });
    expect(created.body.id).toMatch(/^project_[0-9A-Z]{26}$/);
    const read = await h.request("GET", `/projects/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
  });
});
