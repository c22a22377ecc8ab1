import { describe, expect, it } from "vitest";
import { readableContent } from "./span-content.ts";

describe("readableContent", () => {
  it("reads a Model span in the platform form as chat turns with roles and tool calls", () => {
    const content = {
      type: "Model",
      provider: "openai",
      model: "gpt-4o-mini",
      input: JSON.stringify({
        messages: [
          { role: "system", content: [{ modality: "text", value: "Be brief." }] },
          { role: "user", content: [{ modality: "text", value: "Where is order 8812?" }] },
        ],
      }),
      output: JSON.stringify({
        messages: [
          {
            role: "assistant",
            content: [{ modality: "tool-call", index: 0, id: "c1", name: "track", arguments: '{"order":8812}' }],
          },
        ],
        tokenUsage: { promptTokens: 12, completionTokens: 5, totalTokens: 17 },
      }),
    };
    expect(readableContent(content)).toEqual({
      kind: "chat",
      input: [
        { role: "system", parts: [{ kind: "text", text: "Be brief." }] },
        { role: "user", parts: [{ kind: "text", text: "Where is order 8812?" }] },
      ],
      output: [
        { role: "assistant", parts: [{ kind: "tool-call", name: "track", arguments: '{\n  "order": 8812\n}' }] },
      ],
    });
  });

  it("reads OpenAI's native request and response, tool results included", () => {
    const content = {
      type: "Model",
      input: JSON.stringify({
        model: "gpt-4o",
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "Hi" },
              { type: "image_url", image_url: { url: "https://x/y.png" } },
            ],
          },
          { role: "tool", tool_call_id: "call_1", content: '{"ok":true}' },
        ],
      }),
      output: JSON.stringify({ choices: [{ message: { role: "assistant", content: "Hello!" } }] }),
    };
    expect(readableContent(content)).toEqual({
      kind: "chat",
      input: [
        {
          role: "user",
          parts: [
            { kind: "text", text: "Hi" },
            { kind: "image", url: "https://x/y.png" },
          ],
        },
        { role: "tool", parts: [{ kind: "tool-response", name: "call_1", data: '{\n  "ok": true\n}' }] },
      ],
      output: [{ role: "assistant", parts: [{ kind: "text", text: "Hello!" }] }],
    });
  });

  it("shows other spans' input and output as parsed JSON, and what it cannot read as raw", () => {
    expect(readableContent({ type: "Tool", input: '{"q":1}', output: "[1,2]" })).toEqual({
      kind: "io",
      input: { q: 1 },
      output: [1, 2],
    });
    expect(readableContent({ type: "Model", input: "{}", output: "not json" })).toEqual({
      kind: "io",
      input: {},
      output: "not json",
    });
    expect(readableContent({ type: "Retrieval", query: "x" })).toEqual({ kind: "raw" });
    expect(readableContent(null)).toEqual({ kind: "raw" });
  });
});
