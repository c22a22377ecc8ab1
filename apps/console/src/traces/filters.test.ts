import { describe, expect, it } from "vitest";
import { parseAttributeFilter, parseScoreFilter, parseTraceFilters, traceSearchBody } from "./filters.ts";

describe("trace filters", () => {
  it("reads the URL's filters, trimming text and dropping malformed values", () => {
    expect(
      parseTraceFilters({
        from: "1732190400000",
        to: 1732276800000,
        status: "failure",
        name: " checkout ",
        tag: "",
        user: " u-1 ",
      }),
    ).toEqual({ from: 1732190400000, to: 1732276800000, status: "failure", name: "checkout", user: "u-1" });
    expect(parseTraceFilters({ from: "yesterday", to: -1, status: "broken", session: "   " })).toEqual({});
  });

  it("turns them into the search API's fields and filter grammar", () => {
    expect(traceSearchBody("project_01JD8Q4KZ8T6V2M3N4P5Q6R7S8", {})).toEqual({
      projectId: "project_01JD8Q4KZ8T6V2M3N4P5Q6R7S8",
    });
    expect(
      traceSearchBody("project_01JD8Q4KZ8T6V2M3N4P5Q6R7S8", {
        from: 1,
        to: 2,
        status: "success",
        name: "chat",
        session: "s-1",
        user: "user-7",
        tag: "beta",
      }),
    ).toEqual({
      projectId: "project_01JD8Q4KZ8T6V2M3N4P5Q6R7S8",
      startedAfter: 1,
      startedBefore: 2,
      status: "success",
      name: "chat",
      sessionId: "s-1",
      userId: "user-7",
      filters: [{ column: "tags", operator: "contains", value: "beta" }],
    });
  });

  it("reads `key = value` as an attribute condition, typing numbers, booleans and quoted strings", () => {
    expect(parseAttributeFilter("user.plan = pro")).toEqual({
      column: "attributes",
      key: "user.plan",
      operator: "equals",
      value: "pro",
    });
    expect(parseAttributeFilter("retries!=3")).toMatchObject({ key: "retries", operator: "not-equals", value: 3 });
    expect(parseAttributeFilter('zip = "0123"')).toMatchObject({ value: "0123" });
    expect(parseAttributeFilter("cached = true")).toMatchObject({ value: true });
    expect(parseAttributeFilter("just-a-key")).toBeNull();
    expect(parseAttributeFilter("= pro")).toBeNull();
  });

  it("reads `name operator value` as a score condition, numbers only for the ordering operators", () => {
    expect(parseScoreFilter("helpfulness >= 0.5")).toEqual({
      column: "scores",
      name: "helpfulness",
      operator: "gte",
      value: 0.5,
    });
    expect(parseScoreFilter("thumbs = false")).toMatchObject({ name: "thumbs", operator: "equals", value: false });
    expect(parseScoreFilter("tone != rude")).toMatchObject({ operator: "not-equals", value: "rude" });
    expect(parseScoreFilter("answer quality < 2")).toMatchObject({ name: "answer quality", operator: "lt", value: 2 });
    expect(parseScoreFilter("thumbs exists")).toEqual({
      column: "scores",
      name: "thumbs",
      operator: "exists",
      value: true,
    });
    expect(parseScoreFilter("tone > rude")).toBeNull();
    expect(parseScoreFilter("helpfulness")).toBeNull();
  });

  it("maps user, attribute and score filters from the URL to the search body, beside the tag", () => {
    const filters = parseTraceFilters({ user: "user-7", tag: "beta", attribute: "plan = pro", score: "thumbs = true" });
    expect(filters).toEqual({ user: "user-7", tag: "beta", attribute: "plan = pro", score: "thumbs = true" });
    expect(traceSearchBody("project_01JD8Q4KZ8T6V2M3N4P5Q6R7S8", filters)).toEqual({
      projectId: "project_01JD8Q4KZ8T6V2M3N4P5Q6R7S8",
      userId: "user-7",
      filters: [
        { column: "tags", operator: "contains", value: "beta" },
        { column: "attributes", key: "plan", operator: "equals", value: "pro" },
        { column: "scores", name: "thumbs", operator: "equals", value: true },
      ],
    });
    // A condition that does not parse narrows nothing (the form refuses it before it reaches the URL).
    expect(traceSearchBody("project_01JD8Q4KZ8T6V2M3N4P5Q6R7S8", { attribute: "plan" })).toEqual({
      projectId: "project_01JD8Q4KZ8T6V2M3N4P5Q6R7S8",
    });
  });
});
