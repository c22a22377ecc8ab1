import { Validator } from "@cfworker/json-schema";
import { openapiDocument } from "@pharos/contract";
import { describe, expect, it } from "vitest";
import { toolsSchema } from "../../tools-schema-plugin.ts";
import { diffVersions, type Version } from "./diff.ts";
import { toolProblems } from "./tool-problems.ts";

const version = (text: string, model = "gpt-4o-mini"): Version => ({
  config: { provider: "openai", model, settings: { temperature: 0.2 } },
  messages: [
    { role: "system", content: [{ modality: "text", value: "You are a support agent." }] },
    { role: "user", content: [{ modality: "text", value: text }] },
  ],
  tools: [],
});

describe("toolProblems", () => {
  // The schema the console ships, cut from the bundled spec as the build does.
  const validator = new Validator(toolsSchema(openapiDocument as never) as never, "2020-12", false);
  const tool = (schema: Record<string, unknown>) => ({ type: "function", definition: { schema } });

  it("accepts tools the contract accepts", () => {
    expect(toolProblems(validator, [tool({ name: "lookup", description: "Find an order." })])).toEqual([]);
    expect(toolProblems(validator, [])).toEqual([]);
  });

  it("names the innermost place of each schema error", () => {
    const problems = toolProblems(validator, [tool({ name: "lookup" })]);
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.join("\n")).toMatch(/^tools\[0\]\.definition\.schema: .*description/m);
    expect(toolProblems(validator, { not: "an array" })).toEqual([expect.stringMatching(/^tools: /)]);
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
