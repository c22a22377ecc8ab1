import type { schemas } from "@pharos/contract";
import { describe, expect, it } from "vitest";
import { placeholders, variableList, variableMap } from "./template-variables.ts";

type Message = schemas.PromptMessage;

const text = (value: string) => ({ modality: "text" as const, value });
const image = (url: string) => ({
  modality: "image" as const,
  detail: "auto" as const,
  value: { type: "url" as const, url },
});
const pdf = (url: string) => ({
  modality: "pdf" as const,
  value: { type: "url" as const, url },
  file: { name: "f.pdf", id: "f" },
});
const user = (...content: Message["content"]): Message => ({ role: "user", content });

describe("placeholders", () => {
  it("finds {{name}} placeholders in order, repeats included", () => {
    expect(placeholders("Hi {{first}} {{last}}, {{first}}!")).toEqual(["first", "last", "first"]);
  });

  it("accepts letters, digits, _ and - up to 64 characters, and nothing else", () => {
    expect(placeholders("{{a_b-C9}}")).toEqual(["a_b-C9"]);
    expect(placeholders(`{{${"x".repeat(64)}}}`)).toEqual(["x".repeat(64)]);
    expect(placeholders(`{{${"x".repeat(65)}}}`)).toEqual([]);
    expect(placeholders("{{ spaced }} {{a b}} {{}} {{a.b}} {{é}} {single} {{open")).toEqual([]);
  });

  it("finds the placeholder inside extra braces", () => {
    expect(placeholders("{{{name}}}")).toEqual(["name"]);
  });
});

describe("variableList", () => {
  it("derives text, image and pdf variables in order of first appearance", () => {
    const messages: Message[] = [
      { role: "system", content: [text("You work for {{company}}.")] },
      user(text("{{question}}"), image("https://cdn.example.com/{{photo}}.png"), pdf("{{contract}}")),
    ];
    expect(variableList(messages)).toEqual([
      { name: "company", modality: "text" },
      { name: "question", modality: "text" },
      { name: "photo", modality: "image" },
      { name: "contract", modality: "pdf" },
    ]);
  });

  it("gives a name used in several kinds of slot image, else pdf, else text, keeping its first position", () => {
    const messages = [
      user(text("{{a}} {{b}} {{c}}")),
      user(pdf("{{a}}"), pdf("{{b}}")),
      user(image("{{a}}")),
      user(text("{{b}}")),
    ];
    expect(variableList(messages)).toEqual([
      { name: "a", modality: "image" },
      { name: "b", modality: "pdf" },
      { name: "c", modality: "text" },
    ]);
  });

  it("ignores tool calls, tool responses, reasoning, errors and inline base64 content", () => {
    const messages: Message[] = [
      {
        role: "assistant",
        content: [
          { modality: "tool-call", index: 0, id: "call_1", name: "lookup", arguments: '{"q":"{{tool_arg}}"}' },
          { modality: "reasoning", value: { type: "thinking", thinking: "{{thought}}", signature: "s" } },
        ],
      },
      {
        role: "tool",
        content: [{ modality: "tool-response", index: 0, id: "call_1", name: "lookup", data: "{{tool_data}}" }],
      },
      user({ modality: "image", detail: "low", value: { type: "base64", base64: "e3t4fX0=", mediaType: "png" } }),
    ];
    expect(variableList(messages)).toEqual([]);
  });

  it("returns nothing for no messages", () => {
    expect(variableList([])).toEqual([]);
  });
});

describe("variableMap", () => {
  it("keys the variables by name", () => {
    expect(variableMap([user(text("{{question}}"), image("{{photo}}"))])).toEqual({
      question: { modality: "text" },
      photo: { modality: "image" },
    });
  });

  it("makes __proto__ an ordinary own key, not a prototype change", () => {
    const map = variableMap([user(text("{{__proto__}} {{constructor}}"))]);
    expect(Object.keys(map)).toEqual(["__proto__", "constructor"]);
    expect(Object.getPrototypeOf(map)).toBe(Object.prototype);
    expect(JSON.parse(JSON.stringify(map))).toEqual(
      JSON.parse('{"__proto__":{"modality":"text"},"constructor":{"modality":"text"}}'),
    );
  });
});
