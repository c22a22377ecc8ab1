import { expect, it } from "vitest";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";

describeEachStore("updateProject", (use) => {
  it("updates title and icon (200); updatedAt moves", async () => {
    const h = use();
    const { body: project } = await h.request("POST", "/projects", { body: { title: "Old" } });
    const updated = await h.request("PATCH", `/projects/${project.id}`, {
      body: { title: "New", icon: { type: "emoji", value: "🚀" } },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ title: "New", icon: { value: "🚀" } });
    expect(updated.body.updatedAt).toBeGreaterThan(project.updatedAt);
  });
});

describeEachStore("updateProject: masking rules and retention", (use) => {
  const patch = (h: ReturnType<typeof use>, projectId: string, body: unknown) =>
    h.request("PATCH", `/projects/${projectId}`, { body });

  it("saves rules (placeholders spelled out) and retention; a new project has none; null clears retention", async () => {
    const h = use();
    const { body: project } = await h.request("POST", "/projects", { body: { title: "Masked" } });
    expect(project).toMatchObject({ maskingRules: [], retentionDays: null });
    const rules = [{ detector: "email" }, { detector: "regex", pattern: "order-[0-9]{6}", placeholder: "[ORDER]" }];
    const saved = await patch(h, project.id, { maskingRules: rules, retentionDays: 30 });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const expected = {
      maskingRules: [
        { detector: "email", placeholder: "[EMAIL]" },
        { detector: "regex", pattern: "order-[0-9]{6}", placeholder: "[ORDER]" },
      ],
      retentionDays: 30,
      title: "Masked",
    };
    expect(saved.body).toMatchObject(expected);
    expect((await h.request("GET", `/projects/${project.id}`)).body).toMatchObject(expected);
    const cleared = await patch(h, project.id, { retentionDays: null });
    expect(cleared.body).toMatchObject({ ...expected, retentionDays: null });
  });

  it.each([
    ["a pattern that does not compile", { maskingRules: [{ detector: "regex", pattern: "(a" }] }],
    ["a backreference (not linear-time)", { maskingRules: [{ detector: "regex", pattern: "(a)\\1" }] }],
    ["a lookahead (not linear-time)", { maskingRules: [{ detector: "regex", pattern: "a(?=b)" }] }],
    ["a pattern matching the empty string", { maskingRules: [{ detector: "regex", pattern: "x*" }] }],
    ["a pattern too large to run fast (\\w{1000})", { maskingRules: [{ detector: "regex", pattern: "\\w{1000}" }] }],
    ["a pattern too slow on the probe texts (.{600})", { maskingRules: [{ detector: "regex", pattern: ".{600}" }] }],
    ["a regex rule without pattern", { maskingRules: [{ detector: "regex" }] }],
    ["a pattern on a built-in detector", { maskingRules: [{ detector: "email", pattern: "x" }] }],
    ["an unknown detector", { maskingRules: [{ detector: "ssn" }] }],
    ["more than 20 rules", { maskingRules: Array.from({ length: 21 }, () => ({ detector: "email" })) }],
    ["a retention below the 1-day minimum", { retentionDays: 0 }],
    ["a retention over 3650 days", { retentionDays: 3651 }],
    ["a fractional retention", { retentionDays: 1.5 }],
  ])("refuses %s (400), changing nothing", async (_, body) => {
    const h = use();
    const { body: project } = await h.request("POST", "/projects", { body: { title: "Kept" } });
    await patch(h, project.id, { maskingRules: [{ detector: "phone" }], retentionDays: 7 });
    const reply = await patch(h, project.id, { title: "Changed", ...body });
    await expectError(reply, 400, "VALIDATION_ERROR");
    const after = await h.request("GET", `/projects/${project.id}`);
    expect(after.body).toMatchObject({
      title: "Kept",
      maskingRules: [{ detector: "phone", placeholder: "[PHONE]" }],
      retentionDays: 7,
    });
  });

  it("times custom patterns when saved: cheap ones are kept, one that runs too long is named and nothing changes", async () => {
    const h = use();
    const { body: project } = await h.request("POST", "/projects", { body: { title: "Timed" } });
    // Patterns a backtracking engine would choke on, or that look broad, are cheap on RE2 and accepted.
    const cheap = [
      { detector: "regex", pattern: "(a+)+b" },
      { detector: "regex", pattern: String.raw`(?i)(?:api[_-]?key|token)\s*[:=]\s*\S+` },
      { detector: "regex", pattern: String.raw`\b\d{3}-\d{2}-\d{4}\b` },
    ];
    const saved = await patch(h, project.id, { maskingRules: cheap });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);

    const refused = await patch(h, project.id, {
      maskingRules: [...cheap, { detector: "regex", pattern: ".{600}" }, { detector: "regex", pattern: "\\w{1000}" }],
    });
    await expectError(refused, 400, "VALIDATION_ERROR");
    expect(refused.body.error.details).toEqual([
      { field: "maskingRules.3.pattern", issue: expect.stringMatching(/^runs too long: masking the probe texts/) },
      { field: "maskingRules.4.pattern", issue: expect.stringMatching(/^runs too long: it compiles to 1002 RE2/) },
    ]);
    const after = await h.request("GET", `/projects/${project.id}`);
    expect(after.body.maskingRules.map((rule: { pattern: string }) => rule.pattern)).toEqual(
      cheap.map((rule) => rule.pattern),
    );
  });
});
