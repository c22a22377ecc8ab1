/**
 * Error bodies stay within the spec's bounds (Error.message 4096 characters, ErrorDetail.field 512 and issue
 * 2048, at most 100 details) whatever the request: a message or detail that quotes the request is cut short.
 */
import { describe, expect, it } from "vitest";
import { expectError } from "../testing/expect-error.ts";
import { describeEachStore } from "../testing/harness.ts";
import { clip } from "./on-error.ts";

describeEachStore("error bodies", (use) => {
  it("cut a message and an issue that list every unknown field of a body", async () => {
    const h = use();
    const unknown = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`unknownField${i}`, 1]));
    const reply = await h.request("POST", "/projects", { body: { title: "Unknown fields", ...unknown } });
    await expectError(reply, 400, "VALIDATION_ERROR");
    expect(reply.body.error.message.length).toBeLessThanOrEqual(4096);
    expect(reply.body.error.message).toMatch(/unknownField0.*…$/);
    for (const { field, issue } of reply.body.error.details) {
      expect(field.length).toBeLessThanOrEqual(512);
      expect(issue.length).toBeLessThanOrEqual(2048);
    }
    expect(reply.body.error.details.some((detail: { issue: string }) => detail.issue.endsWith("…"))).toBe(true);
  });

  it("cut the path of a field named by a very long key", async () => {
    const h = use();
    const key = "k".repeat(1000);
    const dataset = await h.request("POST", "/datasets", { body: { projectId: h.projectId, title: "Long keys" } });
    const column = {
      name: "tier",
      type: "api",
      settings: { method: "GET", url: "https://example.com", headers: { [key]: 1 } },
    };
    const reply = await h.request("POST", `/datasets/${dataset.body.id}/columns`, { body: { columns: [column] } });
    await expectError(reply, 400, "VALIDATION_ERROR");
    const fields = reply.body.error.details.map((detail: { field: string }) => detail.field);
    expect(fields).toContainEqual(expect.stringMatching(/^columns\.0\.settings\.headers\.k+…$/));
    for (const field of fields) expect(field.length).toBeLessThanOrEqual(512);
  });
});

describe("clip", () => {
  it("keeps text within the limit, never splitting a surrogate pair", () => {
    expect(clip("short", 10)).toBe("short");
    expect(clip("abcdefghij", 5)).toBe("abcd…");
    expect(clip("abc😀def", 5)).toBe("abc…");
    expect(clip("ab😀cd", 4)).toBe("ab…");
  });
});
