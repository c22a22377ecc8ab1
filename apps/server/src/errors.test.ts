/** The one way to say "invalid" and "too large": what the messages and details of those errors hold. */
import { describe, expect, it } from "vitest";
import { failIfInvalid, invalid, invalidRequest, tooLarge } from "./errors.ts";

describe("invalidRequest", () => {
  it("names the first problem in the message and counts the others", () => {
    const error = invalidRequest([
      { field: "spans.0.endedAt", issue: "must be after the span's startedAt" },
      { field: "trace.referenceId", issue: "is required when a span has a referenceId" },
    ]);
    expect(error).toMatchObject({
      code: "VALIDATION_ERROR",
      message: "spans.0.endedAt: must be after the span's startedAt (and 1 more)",
      details: [{ field: "spans.0.endedAt" }, { field: "trace.referenceId" }],
    });
    expect(invalid("", "the prompt version has no model").message).toBe("the prompt version has no model");
  });

  it("lists at most the hundred details the spec allows", () => {
    const problems = Array.from({ length: 150 }, (_, index) => ({ field: `rows.${index}`, issue: "is invalid" }));
    const error = invalidRequest(problems);
    expect(error.details).toHaveLength(100);
    expect(error.message).toBe("rows.0: is invalid (and 149 more)");
  });

  it("failIfInvalid throws only when there is a problem", () => {
    expect(() => failIfInvalid([])).not.toThrow();
    expect(() => failIfInvalid([{ field: "a", issue: "b" }])).toThrow("a: b");
  });
});

describe("tooLarge", () => {
  it("states the limit in megabytes and bytes, or in bytes when it is not whole megabytes", () => {
    expect(tooLarge("Request body", 32 * 1024 * 1024)).toMatchObject({
      code: "PAYLOAD_TOO_LARGE",
      message: "Request body exceeds the limit of 32 MB (33,554,432 bytes).",
    });
    expect(tooLarge("Upload", 1500).message).toBe("Upload exceeds the limit of 1,500 bytes.");
  });
});
