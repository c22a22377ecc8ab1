import { expect, it } from "vitest";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";
import { createPrompt, richDraft, text } from "../../testing/prompt-fixtures.ts";

describeEachStore("getPrompt", (use) => {
  it("returns the prompt as created (200)", async () => {
    const h = use();
    const prompt = await createPrompt(h, { draft: richDraft });
    const read = await h.request("GET", `/prompts/${prompt.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(prompt);
  });

  it("adds the default playground with expand=playground: copied from the initial draft, never changed", async () => {
    const h = use();
    const prompt = await createPrompt(h, { draft: richDraft });
    const playground = {
      id: prompt.defaultPlaygroundId,
      title: "Playground",
      messages: richDraft.messages,
      variables: prompt.draft.variables,
    };
    const read = await h.request("GET", `/prompts/${prompt.id}?expand=playground`);
    expect(read.body).toEqual({ ...prompt, defaultPlayground: playground });

    await h.request("PATCH", `/prompts/${prompt.id}`, {
      body: { messages: [{ role: "user", content: [text("{{x}}")] }] },
    });
    const after = await h.request("GET", `/prompts/${prompt.id}?expand=playground`);
    expect(after.body.draft.variables).toEqual({ x: { modality: "text" } });
    expect(after.body.defaultPlayground).toEqual(playground);
  });

  it("reduces the response to the named fields, always with id", async () => {
    const h = use();
    const prompt = await createPrompt(h, { title: "Selective" });
    const some = await h.request("GET", `/prompts/${prompt.id}?fields=title,updatedAt,title`);
    expect(some.status).toBe(200);
    expect(some.body).toEqual({ id: prompt.id, title: "Selective", updatedAt: prompt.updatedAt });
    const draftOnly = await h.request("GET", `/prompts/${prompt.id}?fields=draft,contentLinks`);
    expect(draftOnly.body).toEqual({ id: prompt.id, draft: prompt.draft, contentLinks: {} });
    const withPlayground = await h.request("GET", `/prompts/${prompt.id}?fields=defaultPlayground&expand=playground`);
    expect(withPlayground.body).toEqual({
      id: prompt.id,
      defaultPlayground: { id: prompt.defaultPlaygroundId, title: "Playground", messages: [], variables: {} },
    });
    const expandedNotNamed = await h.request("GET", `/prompts/${prompt.id}?fields=id&expand=playground`);
    expect(expandedNotNamed.body).toEqual({ id: prompt.id });
  });

  it("answers 400 to defaultPlayground without expand=playground, unknown field names and a bad expand", async () => {
    const h = use();
    const prompt = await createPrompt(h);
    const noExpand = await h.request("GET", `/prompts/${prompt.id}?fields=id,defaultPlayground`);
    await expectError(noExpand, 400, "VALIDATION_ERROR");
    expect(noExpand.body.error.details[0].field).toBe("query.fields");
    for (const query of ["fields=name", "fields=id,%20title", "fields=", "fields=id,,title", "expand=draft"]) {
      await expectError(await h.request("GET", `/prompts/${prompt.id}?${query}`), 400, "VALIDATION_ERROR");
    }
  });
});
