import { describe, expect, it } from "vitest";
import { diffVersions, type Version } from "./diff.ts";
import { segments, variableNames } from "./variables.ts";

const version = (text: string, model = "gpt-4o-mini"): Version => ({
  config: { provider: "openai", model, settings: { temperature: 0.2 } },
  messages: [
    { role: "system", content: [{ modality: "text", value: "You are a support agent." }] },
    { role: "user", content: [{ modality: "text", value: text }] },
  ],
  tools: [],
});

describe("variables", () => {
  it("splits text into plain parts and {{variables}}", () => {
    expect(segments("Hi {{ name }}, order {{order_id}}.")).toEqual([
      { text: "Hi " },
      { text: "{{ name }}", variable: "name" },
      { text: ", order " },
      { text: "{{order_id}}", variable: "order_id" },
      { text: "." },
    ]);
    expect(segments("no {{ }} here {{1x}}")).toEqual([{ text: "no {{ }} here {{1x}}" }]);
    expect(variableNames("{{a}} {{b}} {{a}}")).toEqual(["a", "b"]);
  });
});

describe("diffVersions", () => {
  it("shows changed message lines and model as removed then added, the rest unchanged", () => {
    const lines = diffVersions(version("Where is {{order}}?"), version("Where is order {{order}}?", "gpt-4o"));
    expect(lines.filter((line) => line.kind !== "same")).toEqual([
      { kind: "removed", text: "model: gpt-4o-mini" },
      { kind: "added", text: "model: gpt-4o" },
      { kind: "removed", text: "Where is {{order}}?" },
      { kind: "added", text: "Where is order {{order}}?" },
    ]);
    expect(lines).toContainEqual({ kind: "same", text: "[system]" });
    expect(diffVersions(version("x"), version("x")).every((line) => line.kind === "same")).toBe(true);
  });
});
