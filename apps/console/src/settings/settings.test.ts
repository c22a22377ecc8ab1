import { describe, expect, it } from "vitest";
import { formatHeaders, parseHeaders } from "../headers.ts";
import { fieldIssues } from "./errors.tsx";
import { describeRule, ruleFromForm } from "./score-rules.ts";
import { parseSettingsSection } from "./sections.ts";

describe("settings logic", () => {
  it("reads webhook headers one `Name: value` a line, skipping blank lines, and names a line without a name", () => {
    const parsed = parseHeaders("X-Receiver-Token: abc:def\n\n  Authorization :Bearer t  \n");
    expect(parsed).toEqual({ headers: { "X-Receiver-Token": "abc:def", Authorization: "Bearer t" } });
    expect(parseHeaders("X-Ok: 1\nno colon")).toEqual({ error: "Line 2 is not “Name: value”." });
    expect(parseHeaders(": value")).toEqual({ error: "Line 1 is not “Name: value”." });
    expect(formatHeaders({ "X-A": "1", "X-B": "2" })).toBe("X-A: 1\nX-B: 2");
  });

  it("reads the section from the URL, dropping an unknown one", () => {
    expect(parseSettingsSection({ section: "api-keys" })).toEqual({ section: "api-keys" });
    expect(parseSettingsSection({ section: "billing" })).toEqual({});
  });

  it("finds the API's issues for a field and the fields under it", () => {
    const refusal = {
      error: {
        code: "VALIDATION_ERROR",
        message: "maskingRules.1.pattern: does not compile",
        details: [
          { field: "maskingRules.1.pattern", issue: "does not compile" },
          { field: "retentionDays", issue: "must be at least 1" },
        ],
      },
    };
    expect(fieldIssues(refusal, "retentionDays")).toEqual(["must be at least 1"]);
    expect(fieldIssues(refusal, "maskingRules")).toEqual(["maskingRules.1.pattern: does not compile"]);
    expect(fieldIssues(refusal, "title")).toEqual([]);
    expect(fieldIssues(new Error("offline"), "title")).toEqual([]);
  });

  it("turns the score config form into a rule and a rule into words", () => {
    expect(ruleFromForm("numeric", "0", " ", "")).toEqual({ type: "numeric", min: 0, max: null });
    expect(ruleFromForm("categorical", "", "", "good, bad,,")).toEqual({
      type: "categorical",
      categories: ["good", "bad"],
    });
    expect(ruleFromForm("boolean", "1", "2", "x")).toEqual({ type: "boolean" });
    expect(describeRule({ type: "numeric", min: 0, max: null })).toBe("0 – ∞");
    expect(describeRule({ type: "categorical", categories: ["good", "bad"] })).toBe("good, bad");
  });
});
