import { describe, expect, it } from "vitest";
import type { Schemas } from "../api.ts";
import { belongsTo, configOf, draftOfConfig, draftOfOnline, EMPTY_CONFIG, onlineOf } from "./evaluator-config.ts";

const CONFIGS: Schemas["EvaluatorConfig"][] = [
  { type: "llm-as-a-judge", value: "Pass if polite.", judgeModel: { provider: "openai", model: "gpt-4o-mini" } },
  { type: "llm-as-a-judge", value: "Pass if polite.", judgeModel: null },
  { type: "text-matcher", operator: "regex", value: "^Echo", caseSensitive: false },
  { type: "text-matcher", operator: "contains-any", value: ["refund", "return"], caseSensitive: true },
  { type: "json", mode: "valid-json" },
  { type: "json", mode: "exact-match", expected: '{"a": 1}' },
  { type: "json", mode: "schema", schema: { type: "object", required: ["answer"] } },
  { type: "javascript", code: "return { grade: 'pass', score: 1, reason: '' };", timeoutMs: 2000 },
  { type: "cost", operator: "less-than", threshold: 0.002 },
  { type: "latency", operator: "greater-than", threshold: 2, unit: "s" },
  { type: "response-length", operator: "equals", threshold: 120, unit: "tokens" },
];

describe("evaluator configs in the form", () => {
  it.each(CONFIGS.map((config) => [config.type, config] as const))("round-trips a %s config", (_, config) => {
    expect(configOf(draftOfConfig(config))).toEqual({ ok: true, value: config });
  });

  it("sends one string or a list of strings by the matcher's operator, dropping blank lines", () => {
    const draft = { ...EMPTY_CONFIG, type: "text-matcher" as const, matchValue: "refund\n\n return \n" };
    expect(configOf({ ...draft, matchOperator: "not-contains-any" })).toMatchObject({
      value: { value: ["refund", " return "] },
    });
    expect(configOf({ ...draft, matchOperator: "equals" })).toMatchObject({ value: { value: "refund\n\n return \n" } });
  });

  it("sends only the JSON field of the chosen mode", () => {
    const draft = { ...EMPTY_CONFIG, type: "json" as const, expected: "{}", schema: '{"type":"object"}' };
    expect(configOf({ ...draft, jsonMode: "valid-json" })).toEqual({
      ok: true,
      value: { type: "json", mode: "valid-json" },
    });
  });

  it("names the field whose text is not what the browser can send", () => {
    const schema = { ...EMPTY_CONFIG, type: "json" as const, jsonMode: "schema" as const };
    expect(configOf({ ...schema, schema: "{type:" })).toEqual({
      ok: false,
      problem: { field: "config.schema", issue: "is not valid JSON" },
    });
    expect(configOf({ ...schema, schema: "[]" })).toMatchObject({ ok: false, problem: { field: "config.schema" } });
    expect(configOf({ ...EMPTY_CONFIG, type: "cost", threshold: "" })).toEqual({
      ok: false,
      problem: { field: "config.threshold", issue: "must be a number" },
    });
    expect(configOf({ ...EMPTY_CONFIG, type: "javascript", code: "x", timeoutMs: "soon" })).toMatchObject({
      ok: false,
      problem: { field: "config.timeoutMs" },
    });
  });
});

describe("online settings in the form", () => {
  it("defaults to every span and round-trips filters", () => {
    expect(draftOfOnline(undefined)).toEqual({ sampleRate: "1", filters: "" });
    expect(onlineOf({ sampleRate: "1", filters: " " })).toEqual({ ok: true, value: { sampleRate: 1, filters: [] } });
    const online: Schemas["EvaluatorOnlineSettings"] = {
      sampleRate: 0.25,
      filters: [{ column: "tags", operator: "contains", value: "production" }],
    };
    expect(onlineOf(draftOfOnline(online))).toEqual({ ok: true, value: online });
  });

  it("refuses filters that are not a JSON array and a sample rate that is not a number", () => {
    expect(onlineOf({ sampleRate: "1", filters: '{"column":"tags"}' })).toMatchObject({
      ok: false,
      problem: { field: "online.filters" },
    });
    expect(onlineOf({ sampleRate: "half", filters: "" })).toMatchObject({
      ok: false,
      problem: { field: "online.sampleRate" },
    });
  });

  it("places an API problem at the field it names or one inside it", () => {
    expect(belongsTo("online.filters.0.column", "online.filters")).toBe(true);
    expect(belongsTo("config.value", "config.value")).toBe(true);
    expect(belongsTo("config.valueX", "config.value")).toBe(false);
  });
});
