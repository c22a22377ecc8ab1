import { describe, expect, it } from "vitest";
import { parseTraceFilters, traceSearchBody } from "./filters.ts";

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
});
