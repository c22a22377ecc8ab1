/**
 * What every request must be beyond its schema, on both databases: UTF-8 bodies, no U+0000 in any string of a
 * body, query or path, and at most MAX_NESTING levels of nesting. Each breach is a 400 naming the field, and
 * nothing of the request is stored.
 */
import { expect, it } from "vitest";
import { expectError } from "../testing/expect-error.ts";
import { describeEachStore, type Harness } from "../testing/harness.ts";
import { MAX_NESTING } from "./request-screen.ts";

const T0 = 1_732_190_400_000;

/** JSON text of an object nested `levels` deep ({"a":{"a":…}}), built as text: a deep value cannot be stringified. */
const nestedText = (levels: number) => `${'{"a":'.repeat(levels - 1)}{"a":1}${"}".repeat(levels - 1)}`;

const post = (h: Harness, path: string, text: string) =>
  h.request("POST", path, { rawBody: text, headers: { "Content-Type": "application/json" } });

const expectInvalid = async (reply: { status: number; body: any }, field: string, issue: RegExp) => {
  await expectError(reply, 400, "VALIDATION_ERROR");
  expect(reply.body.error.details).toContainEqual({ field, issue: expect.stringMatching(issue) });
};

const NUL = /U\+0000/;

describeEachStore("request screening", (use) => {
  const promptTitles = async (h: Harness) =>
    (await h.request("GET", `/prompts?projectId=${h.projectId}&limit=200`)).body.prompts.map(
      (prompt: { title: string }) => prompt.title,
    );
  const traceCount = async (h: Harness) =>
    (await h.request("POST", "/logs/traces", { body: { projectId: h.projectId, limit: 200 } })).body.traces.length;

  it("refuses a body that is not UTF-8 instead of replacing its bytes, and stores nothing", async () => {
    const h = use();
    const before = (await h.request("GET", "/projects?limit=200")).body.projects.length;
    const bytes = Buffer.concat([Buffer.from('{"title":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
    const response = await h.app.request("/v2/projects", {
      method: "POST",
      headers: { Authorization: `Bearer ${h.key}`, "Content-Type": "application/json" },
      body: bytes,
    });
    const reply = { status: response.status, body: (await response.json()) as any };
    await expectError(reply, 400, "VALIDATION_ERROR");
    expect(reply.body.error.message).toMatch(/not valid UTF-8/);
    expect((await h.request("GET", "/projects?limit=200")).body.projects.length).toBe(before);

    // The same text in UTF-8 is fine.
    expect((await h.request("POST", "/projects", { body: { title: "café" } })).status).toBe(201);
  });

  it("refuses U+0000 in a string of a body, at any depth, and in a key, naming the field", async () => {
    const h = use();
    const cases: [string, unknown, string][] = [
      ["/prompts", { projectId: h.projectId, title: "a\u0000b" }, "title"],
      [
        "/prompts",
        {
          projectId: h.projectId,
          title: "nul in settings",
          draft: { config: { provider: "openai", model: "m", settings: { stop: ["x\u0000"] } }, messages: [] },
        },
        "draft.config.settings.stop.0",
      ],
      [
        "/prompts",
        {
          projectId: h.projectId,
          title: "nul in a key",
          draft: { config: { provider: "openai", model: "m", settings: { "a\u0000": 1 } }, messages: [] },
        },
        "draft.config.settings.a\u0000",
      ],
      [
        "/logs/trace",
        {
          projectId: h.projectId,
          trace: { name: "t", status: "success", startedAt: T0, attributes: { user: "x\u0000" } },
        },
        "trace.attributes.user",
      ],
      [
        "/logs/trace",
        {
          projectId: h.projectId,
          trace: { name: "t", status: "success", startedAt: T0 },
          spans: [
            {
              name: "s",
              status: "success",
              startedAt: T0,
              endedAt: T0 + 1,
              content: { type: "Function", input: "{}", output: "out\u0000put" },
            },
          ],
        },
        "spans.0.content.output",
      ],
    ];
    const titles = await promptTitles(h);
    const traces = await traceCount(h);
    for (const [path, body, field] of cases) {
      await expectInvalid(await h.request("POST", path, { body }), field, NUL);
    }
    expect(await promptTitles(h)).toEqual(titles);
    expect(await traceCount(h)).toBe(traces);
  });

  it("refuses U+0000 in a query parameter and in a path parameter", async () => {
    const h = use();
    await expectInvalid(
      await h.request("GET", `/prompts?projectId=project_%00${"0".repeat(25)}`),
      "query.projectId",
      NUL,
    );
    await expectInvalid(await h.request("GET", `/datasets?projectId=${h.projectId}&cursor=a%00b`), "query.cursor", NUL);
    await expectInvalid(await h.request("GET", `/prompts/prompt_%00${"0".repeat(25)}`), "path.promptId", NUL);
  });

  it(`takes ${MAX_NESTING} levels of nesting, refuses one more (naming where), and any depth without a 5xx`, async () => {
    const h = use();
    const settings = (text: string, title: string) =>
      `{"projectId":"${h.projectId}","title":"${title}","draft":{"config":{"provider":"openai","model":"m","settings":${text}},"messages":[]}}`;
    // The body is level 1, draft 2, config 3, settings 4.
    expect((await post(h, "/prompts", settings(nestedText(MAX_NESTING - 3), "deepest"))).status).toBe(201);
    const tooDeep = await post(h, "/prompts", settings(nestedText(MAX_NESTING - 2), "too deep"));
    // The object at level 65 is the 62nd of settings, 61 keys below it.
    await expectInvalid(tooDeep, `draft.config.settings${".a".repeat(MAX_NESTING - 3)}`, /nests deeper than/);

    const attributes = (text: string) =>
      `{"projectId":"${h.projectId}","trace":{"name":"t","status":"success","startedAt":${T0},"attributes":{"a":${text}}}}`;
    for (const levels of [1_000, 100_000]) {
      await expectError(await post(h, "/prompts", settings(nestedText(levels), `${levels}`)), 400, "VALIDATION_ERROR");
      await expectError(await post(h, "/logs/trace", attributes(nestedText(levels))), 400, "VALIDATION_ERROR");
    }
    expect(await promptTitles(h)).not.toContain("too deep");
    expect(await promptTitles(h)).not.toContain("1000");
  });
});
