import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeProvider, startFakeProvider } from "../testing/fake-provider.ts";
import { judge } from "./judge.ts";
import type { CallOptions, ModelTarget } from "./model-target.ts";

let fake: FakeProvider;
beforeEach(async () => {
  fake = await startFakeProvider();
});
afterEach(async () => {
  await fake.close();
});

const OPTIONS: CallOptions = { timeoutMs: 5000, maxRetries: 1 };
const INPUT = {
  rubric: "The answer must be polite.",
  variables: { question: "Where is my parcel?" },
  output: "It ships today.",
};

function target(provider: ModelTarget["provider"], model: string): ModelTarget {
  return { provider, baseUrl: `${fake.url}/v1`, apiKey: "sk-test", headers: {}, model };
}

// Anthropic models with native structured output get `output_config.format`; older ones a forced `json` tool.
const KINDS = [
  { case: "openai", target: () => target("openai", "gpt-4o-mini") },
  { case: "openai-compatible", target: () => target("openai-compatible", "llama3.1") },
  { case: "anthropic (native output format)", target: () => target("anthropic", "claude-sonnet-4-5") },
  { case: "anthropic (json tool)", target: () => target("anthropic", "claude-3-haiku-20240307") },
];

function lastBody(): any {
  return fake.requests.at(-1)?.body;
}

describe.each(KINDS)("judge on $case", ({ target }) => {
  it("returns the model's pass verdict", async () => {
    fake.configure({ verdict: () => ({ grade: "pass", score: 0.9, reason: "Polite and clear." }) });

    expect(await judge(target(), INPUT, OPTIONS)).toEqual({ grade: "pass", score: 0.9, reason: "Polite and clear." });
  });

  it("returns the model's fail verdict", async () => {
    fake.configure({ verdict: () => ({ grade: "fail", score: 0, reason: "Rude." }) });

    expect(await judge(target(), INPUT, OPTIONS)).toEqual({ grade: "fail", score: 0, reason: "Rude." });
  });

  it("gives unknown for an answer that is not JSON", async () => {
    fake.configure({ verdict: () => "I think it is fine" });

    const verdict = await judge(target(), INPUT, OPTIONS);

    expect(verdict.grade).toBe("unknown");
    expect(verdict.score).toBe(0);
    expect(verdict.reason).toMatch(/^the judge model's answer is not a verdict/);
  });

  it("gives unknown for an empty answer", async () => {
    fake.configure({ verdict: () => "" });

    const verdict = await judge(target(), INPUT, OPTIONS);

    expect(verdict.grade).toBe("unknown");
    expect(verdict.reason).toMatch(/^the judge model's answer is not a verdict/);
  });

  it("gives unknown, not a clamped score, for a score outside 0..1", async () => {
    fake.configure({ verdict: () => ({ grade: "pass", score: 1.5, reason: "Very polite." }) });

    const verdict = await judge(target(), INPUT, OPTIONS);

    expect(verdict).toEqual({ grade: "unknown", score: 0, reason: expect.stringContaining('"score":1.5') });
  });

  it("gives unknown for a grade outside pass/fail", async () => {
    fake.configure({ verdict: () => ({ grade: "maybe", score: 0.5, reason: "Unsure." }) });

    expect((await judge(target(), INPUT, OPTIONS)).grade).toBe("unknown");
  });
});

describe("judge: the request", () => {
  it("asks OpenAI for a strict json_schema answer, with the rubric, the variables and the output", async () => {
    await judge(target("openai", "gpt-4o-mini"), INPUT, OPTIONS);

    const body = lastBody();
    expect(body.response_format).toMatchObject({
      type: "json_schema",
      json_schema: {
        name: "verdict",
        strict: true,
        schema: { type: "object", required: ["grade", "score", "reason"], additionalProperties: false },
      },
    });
    const [system, user] = body.messages;
    expect(system.role).toBe("system");
    expect(system.content).toContain("The answer must be polite.");
    expect(system.content).toContain('<variable name="question">\nWhere is my parcel?\n</variable>');
    expect(user).toEqual({ role: "user", content: "<output>\nIt ships today.\n</output>" });
  });

  it("asks Anthropic for its native output format where the model has it, otherwise forces the json tool", async () => {
    await judge(target("anthropic", "claude-sonnet-4-5"), INPUT, OPTIONS);
    expect(lastBody().output_config.format.type).toBe("json_schema");

    await judge(target("anthropic", "claude-3-haiku-20240307"), INPUT, OPTIONS);
    expect(lastBody().tools.map((tool: any) => tool.name)).toEqual(["json"]);
    expect(lastBody().tool_choice.type).toBe("any");
  });

  it("judges an empty output (the fake's default verdict fails it)", async () => {
    const verdict = await judge(target("anthropic", "claude-sonnet-4-5"), { ...INPUT, output: "" }, OPTIONS);

    expect(verdict).toEqual({ grade: "fail", score: 0, reason: "The output is empty." });
  });
});

describe("judge: failures never throw", () => {
  it("gives unknown with the status when the provider keeps failing", async () => {
    fake.configure({ fail: () => ({ status: 500 }) });

    expect(await judge(target("openai", "gpt-4o-mini"), INPUT, OPTIONS)).toEqual({
      grade: "unknown",
      score: 0,
      reason: "the judge model call failed: openai returned 500 after 2 attempts: fake failure (500)",
    });
  });

  it("gives unknown when the call times out", async () => {
    fake.configure({ latencyMs: 50 });

    const verdict = await judge(target("anthropic", "claude-sonnet-4-5"), INPUT, { timeoutMs: 10, maxRetries: 0 });

    expect(verdict).toEqual({
      grade: "unknown",
      score: 0,
      reason: "the judge model call failed: timed out after 10 ms",
    });
  });

  it("gives unknown without credentials", async () => {
    const verdict = await judge({ ...target("openai", "gpt-4o-mini"), apiKey: null }, INPUT, OPTIONS);

    expect(verdict.grade).toBe("unknown");
    expect(verdict.reason).toBe("the judge model call failed: no credentials: the openai provider has no API key");
  });
});
