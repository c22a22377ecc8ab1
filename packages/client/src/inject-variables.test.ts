import { describe, expect, it } from "vitest";
import { injectVariables } from "./inject-variables.ts";
import type { PromptSnapshot } from "./types.ts";

const PROMPT: PromptSnapshot = {
  config: { providerName: "openai", model: "gpt-4o-mini", settings: {} },
  messages: [
    { role: "system", content: [{ modality: "text", value: "You support {{company}}. Keep {{ this }} and {{a.b}}." }] },
    {
      role: "user",
      content: [
        { modality: "text", value: "{{question}} ({{question}}, {{tone}})" },
        { modality: "image", detail: "auto", value: { type: "url", url: "https://img.example/{{photo}}.png" } },
        { modality: "pdf", value: { type: "url", url: "{{manual}}" }, file: { name: "m.pdf", id: "m" } },
        { modality: "tool-call", index: 0, id: "c1", name: "lookup", arguments: '{"q":"{{question}}"}' },
      ],
    },
  ],
  tools: [],
  variables: [
    { name: "company", modality: "text" },
    { name: "question", modality: "text" },
    { name: "tone", modality: "text" },
    { name: "photo", modality: "image" },
    { name: "manual", modality: "pdf" },
  ],
};

describe("injectVariables", () => {
  it("fills text and image/PDF URLs, leaves what is not a placeholder, and reports the missing", () => {
    const result = injectVariables(PROMPT, {
      company: "Acme",
      question: "Where is {{order}}?",
      photo: "receipt",
      manual: "https://docs.example/m.pdf",
      unused: "x",
    });
    const [system, user] = result.messages;
    expect(system?.content[0]).toEqual({ modality: "text", value: "You support Acme. Keep {{ this }} and {{a.b}}." });
    // A value is not expanded again, and tool calls are not a variable slot.
    expect(user?.content[0]).toEqual({
      modality: "text",
      value: "Where is {{order}}? (Where is {{order}}?, {{tone}})",
    });
    expect(user?.content[1]).toMatchObject({ value: { type: "url", url: "https://img.example/receipt.png" } });
    expect(user?.content[2]).toMatchObject({ value: { type: "url", url: "https://docs.example/m.pdf" } });
    expect(user?.content[3]).toMatchObject({ arguments: '{"q":"{{question}}"}' });
    expect(result.missing).toEqual(["tone"]);
    expect(result.variables).toEqual({
      company: { modality: "text", value: "Acme" },
      question: { modality: "text", value: "Where is {{order}}?" },
      photo: { modality: "image", value: "receipt" },
      manual: { modality: "pdf", value: "https://docs.example/m.pdf" },
    });
    // The deployment itself is unchanged.
    expect(PROMPT.messages[0]?.content[0]).toMatchObject({ value: expect.stringContaining("{{company}}") });
  });

  it("takes a deployment as well as its snapshot, and reports placeholders the snapshot does not declare", () => {
    const result = injectVariables(
      {
        id: "deployment_01JD8Q4P4R3E8CP6Z0A2B5F7YD",
        createdAt: 1,
        updatedAt: 1,
        createdByUserId: "apikey_01JD8Q2A1B2C3D4E5F6G7H8J9K",
        updatedByUserId: "apikey_01JD8Q2A1B2C3D4E5F6G7H8J9K",
        projectId: "project_01JD8Q4KZ8T6V2M3N4P5Q6R7S8",
        promptId: "prompt_01JD8Q4M1N0B5ZK3W7X9Y2C4VA",
        deploymentEnvironmentId: "env_01JD8Q4N3Q2D7BN5Y9Z1A4E6XC",
        prompt: { ...PROMPT, variables: [] },
      },
      { constructor: "not from the prototype" },
    );
    expect(result.missing).toEqual(["company", "question", "tone", "photo", "manual"]);
    expect(result.variables).toEqual({});
  });
});
