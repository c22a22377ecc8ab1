/**
 * Masking at ingestion, on every log write path (POST /logs/trace, POST /logs/span, PATCH /logs/trace, OTLP):
 * what a project's rules match never reaches the database — not the rows, not the search index — and
 * searches show the placeholders.
 */
import { expect, it } from "vitest";
import { describeEachStore, type Harness } from "../../testing/harness.ts";
import {
  type Body,
  createTrace,
  newProject,
  patchTrace,
  postSpan,
  T0,
  traceBody,
  uniqueRef,
} from "../../testing/log-write-fixtures.ts";
import { hexId, jsonRequest, sendOtlp } from "../../testing/otel-fixtures.ts";

const EMAIL = "jane.doe@example.com";
const PHONE = "+1 415 555 2671";
const CARD = "4111 1111 1111 1111";
/** Sixteen digits that fail the Luhn check: not a card number, kept. */
const NOT_A_CARD = "4111 1111 1111 1112";
const API_KEY = "sk-proj-abcdefghijklmnopqrstuvwx123456";
const ORDER = "order-123456";
const SECRETS = [EMAIL, PHONE, CARD, API_KEY, ORDER];

const RULES = [
  { detector: "email" },
  { detector: "phone" },
  { detector: "creditCard" },
  { detector: "apiKey" },
  { detector: "regex", pattern: "order-[0-9]{6}", placeholder: "[ORDER]" },
];

/** Text with one of each secret in it. */
const SENSITIVE = `mail ${EMAIL}, call ${PHONE}, card ${CARD}, key ${API_KEY}, ${ORDER}; ref ${NOT_A_CARD}`;
const MASKED = "mail [EMAIL], call [PHONE], card [CREDIT_CARD], key [API_KEY], [ORDER]; ref 4111 1111 1111 1112";

async function maskedProject(h: Harness): Promise<string> {
  const projectId = await newProject(h);
  const reply = await h.request("PATCH", `/projects/${projectId}`, { body: { maskingRules: RULES } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return projectId;
}

/** Every stored log row of the project (traces, spans, attribute and tag index rows), as JSON text. */
async function storedText(h: Harness, projectId: string): Promise<string> {
  const db = h.store.db;
  const rows = await Promise.all([
    db.selectFrom("logTraces").selectAll().where("projectId", "=", projectId).execute(),
    db.selectFrom("logSpans").selectAll().where("projectId", "=", projectId).execute(),
    db.selectFrom("logAttributes").selectAll().where("projectId", "=", projectId).execute(),
    db.selectFrom("logTags").selectAll().where("projectId", "=", projectId).execute(),
  ]);
  return JSON.stringify(rows);
}

/** What the two searches answer for the project, as JSON text. */
async function searchedText(h: Harness, projectId: string): Promise<string> {
  const traces = await h.request("POST", "/logs/traces", { body: { projectId, limit: 200 } });
  const spans = await h.request("POST", "/logs/spans", { body: { projectId, limit: 200 } });
  expect(traces.status).toBe(200);
  expect(spans.status).toBe(200);
  return JSON.stringify([traces.body, spans.body]);
}

async function expectNothingUnmasked(h: Harness, projectId: string) {
  const texts = [await storedText(h, projectId), await searchedText(h, projectId)];
  for (const text of texts) {
    for (const secret of SECRETS) expect(text).not.toContain(secret);
  }
}

/** A span whose every data field carries the secrets (content as an object, its input and output JSON text). */
const sensitiveSpan = (overrides: Body = {}): Body => ({
  name: `answer ${EMAIL}`,
  status: "success",
  startedAt: T0 + 100,
  endedAt: T0 + 200,
  content: {
    type: "Model",
    provider: "openai",
    model: "gpt-4o-mini",
    input: JSON.stringify({ messages: [{ role: "user", content: [{ modality: "text", value: SENSITIVE }] }] }),
    output: JSON.stringify({
      messages: [{ role: "assistant", content: [{ modality: "text", value: `Sure, ${EMAIL}` }] }],
      tokenUsage: { promptTokens: 12, completionTokens: 5, totalTokens: 17 },
    }),
    cost: 0.5,
  },
  attributes: { "user.email": EMAIL, note: SENSITIVE, retries: 2 },
  tags: [API_KEY, "production"],
  events: [JSON.stringify({ said: SENSITIVE })],
  ...overrides,
});

describeEachStore("masking at ingestion", (use) => {
  it("POST /logs/trace stores trace and spans masked, content JSON intact, search columns kept", async () => {
    const h = use();
    const projectId = await maskedProject(h);
    const { traceId } = await createTrace(
      h,
      traceBody(
        h,
        { name: `chat ${EMAIL}`, attributes: { contact: PHONE, plan: "pro" }, tags: [ORDER, "eu"] },
        [sensitiveSpan(), { ...sensitiveSpan(), content: JSON.stringify(sensitiveSpan().content) }],
        projectId,
      ),
    );
    await expectNothingUnmasked(h, projectId);

    const spans = await h.request("POST", "/logs/spans", { body: { projectId, limit: 200 } });
    expect(spans.body.spans).toHaveLength(2);
    for (const span of spans.body.spans) {
      const input = JSON.parse(span.parsedContent.input);
      expect(input.messages[0].content[0].value).toBe(MASKED);
      expect(JSON.parse(span.parsedContent.output).messages[0].content[0].value).toBe("Sure, [EMAIL]");
      expect(span).toMatchObject({
        name: "answer [EMAIL]",
        parsedContent: { model: "gpt-4o-mini", provider: "openai" },
        cost: 0.5,
        attributes: { "user.email": "[EMAIL]", note: MASKED, retries: 2 },
        tags: ["[API_KEY]", "production"],
        events: [JSON.stringify({ said: MASKED })],
      });
    }
    const traces = await h.request("POST", "/logs/traces", { body: { projectId } });
    expect(traces.body.traces[0]).toMatchObject({
      id: traceId,
      name: "chat [EMAIL]",
      attributes: { contact: "[PHONE]", plan: "pro" },
      tags: ["[ORDER]", "eu"],
      totalCost: 1,
    });
    // The search index holds the masked values: a filter on the placeholder finds the spans.
    const byAttribute = await h.request("POST", "/logs/spans", {
      body: {
        projectId,
        filters: [{ column: "attributes", key: "user.email", operator: "equals", value: "[EMAIL]" }],
      },
    });
    expect(byAttribute.status, JSON.stringify(byAttribute.body)).toBe(200);
    expect(byAttribute.body.spans).toHaveLength(2);
  });

  it("POST /logs/span and PATCH /logs/trace store masked values", async () => {
    const h = use();
    const projectId = await maskedProject(h);
    const referenceId = uniqueRef("masked");
    const { traceId } = await createTrace(h, traceBody(h, { referenceId }, undefined, projectId));
    const span = await postSpan(h, { projectId, span: { ...sensitiveSpan(), traceId } });
    expect(span.status, JSON.stringify(span.body)).toBe(200);
    const patched = await patchTrace(h, {
      projectId,
      referenceId,
      logTrace: {
        attributes: [{ operation: "create", key: "caller", value: SENSITIVE }],
        tags: [{ operation: "create", tag: CARD }],
      },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    await expectNothingUnmasked(h, projectId);

    const traces = await h.request("POST", "/logs/traces", { body: { projectId } });
    expect(traces.body.traces[0]).toMatchObject({ attributes: { caller: MASKED }, tags: ["[CREDIT_CARD]"] });
    // Deleting the tag as it was sent removes what was stored for it.
    const deleted = await patchTrace(h, {
      projectId,
      traceId,
      logTrace: { tags: [{ operation: "delete", tag: CARD }] },
    });
    expect(deleted.status).toBe(200);
    const after = await h.request("POST", "/logs/traces", { body: { projectId } });
    expect(after.body.traces[0].tags).toEqual([]);
  });

  it("POST /otel/v1/traces stores masked span names, attributes and content", async () => {
    const h = use();
    const projectId = await maskedProject(h);
    const traceId = hexId(16);
    const reply = await sendOtlp(h, {
      projectId,
      body: JSON.stringify(
        jsonRequest([
          {
            traceId,
            spanId: hexId(8),
            name: `chat ${EMAIL}`,
            attributes: {
              "gen_ai.operation.name": "chat",
              "gen_ai.system": "openai",
              "gen_ai.request.model": "gpt-4o-mini",
              "gen_ai.prompt.0.role": "user",
              "gen_ai.prompt.0.content": SENSITIVE,
              "gen_ai.completion.0.role": "assistant",
              "gen_ai.completion.0.content": `Mail ${EMAIL}`,
              "app.customer": PHONE,
            },
          },
        ]),
      ),
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toEqual({});
    await expectNothingUnmasked(h, projectId);
    const stored = await storedText(h, projectId);
    expect(stored).toContain("[EMAIL]");
    expect(stored).toContain("[PHONE]");
    expect(stored).toContain("[CREDIT_CARD]");
  });

  it("leaves a project without rules, and other projects, as sent", async () => {
    const h = use();
    await maskedProject(h);
    const plain = await newProject(h);
    await createTrace(h, traceBody(h, { attributes: { contact: EMAIL } }, [sensitiveSpan()], plain));
    const text = await storedText(h, plain);
    for (const secret of SECRETS) expect(text).toContain(secret);
  });

  it("applies changed rules from the next write on (every server: the project is a cached read)", async () => {
    const h = use();
    const projectId = await maskedProject(h);
    await createTrace(h, traceBody(h, { attributes: { contact: EMAIL } }, undefined, projectId));
    const cleared = await h.request("PATCH", `/projects/${projectId}`, { body: { maskingRules: [] } });
    expect(cleared.status).toBe(200);
    await createTrace(h, traceBody(h, { attributes: { contact: EMAIL } }, undefined, projectId));
    const rows = await h.store.db
      .selectFrom("logTraces")
      .select("attributes")
      .where("projectId", "=", projectId)
      .orderBy("createdAt")
      .execute();
    expect(rows.map((row) => JSON.parse(row.attributes).contact)).toEqual(["[EMAIL]", EMAIL]);
  });

  it("masks with a catastrophic-backtracking pattern in linear time", async () => {
    const h = use();
    const projectId = await newProject(h);
    // On a backtracking engine `(a+)+b` takes 2^n steps on n a's without a b: this text would never finish.
    const rules = [{ detector: "regex", pattern: "(a+)+b", placeholder: "[AB]" }];
    expect((await h.request("PATCH", `/projects/${projectId}`, { body: { maskingRules: rules } })).status).toBe(200);
    const evil = `${"a".repeat(4000)}c`;
    const { traceId } = await createTrace(
      h,
      traceBody(h, { attributes: { evil, fine: "xaaab" } }, [sensitiveSpan({ events: [evil.repeat(4)] })], projectId),
    );
    const traces = await h.request("POST", "/logs/traces", { body: { projectId } });
    expect(traces.body.traces[0]).toMatchObject({ id: traceId, attributes: { evil, fine: "x[AB]" } });
  });
});
