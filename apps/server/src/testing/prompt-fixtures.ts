/** Fixtures of the prompt tests: drafts with every kind of variable, and prompts and projects made through the API. */
import { expect } from "vitest";
import type { Harness } from "./harness.ts";

export const MISSING_PROMPT = `prompt_${"0".repeat(26)}`;
export const MISSING_PROVIDER = `provider_${"0".repeat(26)}`;

export const text = (value: string) => ({ modality: "text", value });
export const imageUrl = (url: string) => ({ modality: "image", detail: "auto", value: { type: "url", url } });
const pdfUrl = (url: string) => ({ modality: "pdf", value: { type: "url", url }, file: { name: "a.pdf", id: "a" } });
export const tool = {
  type: "function",
  definition: { schema: { name: "get_order_status", description: "Look up an order." } },
};

/** A draft with a configuration, text, image and PDF variables, and a tool. */
export const richDraft = {
  config: { provider: "openai", model: "gpt-4o-mini", settings: { temperature: 0.2, reasoningEffort: "low" } },
  messages: [
    { role: "system", content: [text("You work for {{company}}.")] },
    {
      role: "user",
      content: [
        text("{{question}} about {{company}}"),
        imageUrl("https://img.example.com/{{photo}}"),
        pdfUrl("{{doc}}"),
      ],
    },
  ],
  tools: [tool],
};

/** A message using `count` distinct variables. */
export const manyVariables = (count: number) => [
  { role: "user", content: [text(Array.from({ length: count }, (_, i) => `{{v${i}}}`).join(" "))] },
];

let providerCount = 0;

export async function createProviderRecord(h: Harness, provider: string, key?: string): Promise<string> {
  const reply = await h.request("POST", "/providers", {
    body: { provider, displayName: `Provider ${++providerCount}` },
    key,
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.id;
}

export async function createPrompt(h: Harness, body: Record<string, unknown> = {}, key?: string) {
  const reply = await h.request("POST", "/prompts", { body: { projectId: h.projectId, ...body }, key });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body;
}

/** A project of the harness's workspace other than its default one. */
export async function newProject(h: Harness) {
  return (await h.request("POST", "/projects", { body: { title: "Another" } })).body.id as string;
}
