import { expect, it } from "vitest";
import { describeEachStore } from "../../testing/harness.ts";
import { createPrompt, richDraft } from "../../testing/prompt-fixtures.ts";

describeEachStore("getPromptDraft", (use) => {
  it("returns the draft (200), the same object as draft in getPrompt", async () => {
    const h = use();
    const prompt = await createPrompt(h, { draft: richDraft });
    const reply = await h.request("GET", `/prompts/${prompt.id}/draft`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(prompt.draft);
  });
});
