/**
 * Continuous evaluation of spans that arrive over OTLP (`POST /otel/v1/traces`), end to end on each database:
 * the `pharos.prompt.id`, `pharos.run_evaluation` and `pharos.variables` attributes make an OTLP span a span
 * of the prompt asking for evaluation, queued in the export's transaction and graded by the worker like a
 * span of `POST /logs/trace`; without the flag, or with a prompt id that is not of the project, it is stored
 * and not queued.
 */
import { beforeAll, expect, it } from "vitest";
import { describeEachStore, type Harness } from "../testing/harness.ts";
import { newDeployment, newProject, T0 } from "../testing/log-write-fixtures.ts";
import { hexId, type JsonSpan, jsonRequest, sendOtlp } from "../testing/otel-fixtures.ts";

const WINDOW = `from=${T0 - 60_000}&to=${T0 + 365 * 24 * 3_600_000}`;

async function ok(h: Harness, method: string, path: string, body?: unknown) {
  const reply = await h.request(method, path, { body });
  expect(reply.status, `${method} ${path}: ${JSON.stringify(reply.body)}`).toBeLessThan(300);
  return reply.body;
}

/** A prompt of the harness's project with one text-matcher evaluator passing outputs that contain `{{word}}`. */
async function newPromptWithEvaluator(h: Harness, online?: Record<string, unknown>, projectId = h.projectId) {
  const prompt = await ok(h, "POST", "/prompts", { projectId, title: "Support" });
  const dataset = await ok(h, "POST", "/datasets", { projectId, title: "Questions" });
  const created = await ok(h, "POST", `/prompts/${prompt.id}/evaluators`, {
    projectId,
    datasetId: dataset.id,
    title: "Ships",
    config: { type: "text-matcher", operator: "contains-any", value: ["{{word}}"] },
    ...(online && { online }),
  });
  return { promptId: prompt.id as string, evaluatorId: created.id as string };
}

/** A GenAI chat span whose answer is "It ships tomorrow.", with `attributes` added. */
function chatSpan(traceId: string, attributes: Record<string, unknown>, span: Partial<JsonSpan> = {}): JsonSpan {
  return {
    traceId,
    spanId: hexId(8),
    name: "chat gpt-4o-mini",
    attributes: {
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-4o-mini",
      "gen_ai.prompt.0.role": "user",
      "gen_ai.prompt.0.content": "Where is my order 8812?",
      "gen_ai.completion.0.role": "assistant",
      "gen_ai.completion.0.content": "It ships tomorrow.",
      "gen_ai.usage.input_tokens": 12,
      "gen_ai.usage.output_tokens": 5,
      ...attributes,
    },
    ...span,
  };
}

async function exportSpans(h: Harness, spans: JsonSpan[], projectId = h.projectId) {
  const reply = await sendOtlp(h, { body: JSON.stringify(jsonRequest(spans)), projectId });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  expect(reply.body).toEqual({});
}

/** The stored span with OTel span id `referenceId`, and its queue rows. */
async function storedSpan(h: Harness, referenceId: string, projectId = h.projectId) {
  const span = await h.store.db
    .selectFrom("logSpans")
    .selectAll()
    .where("projectId", "=", projectId)
    .where("referenceId", "=", referenceId)
    .executeTakeFirstOrThrow();
  const queued = await h.store.db.selectFrom("onlineEvaluations").selectAll().where("spanId", "=", span.id).execute();
  return { ...span, attributes: JSON.parse(span.attributes), parsedContent: JSON.parse(span.content), queued };
}

async function waitForStats(h: Harness, s: { promptId: string; evaluatorId: string }, until: (stats: any) => boolean) {
  let last: any;
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    last = await ok(h, "GET", `/prompts/${s.promptId}/evaluators/${s.evaluatorId}/online-stats?${WINDOW}`);
    if (until(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`the counts did not get there: ${JSON.stringify(last)}`);
}

const scoresOf = (h: Harness, spanId: string) =>
  h.store.db.selectFrom("scores").selectAll().where("spanId", "=", spanId).execute();

describeEachStore("continuous evaluation of OTLP spans", (use) => {
  beforeAll(async () => {
    await use().startWorker({ concurrency: 4, providerMaxRetries: 0 });
  });

  it("grades an OTLP span with pharos.prompt.id, pharos.run_evaluation and pharos.variables through the worker", async () => {
    const h = use();
    const s = await newPromptWithEvaluator(h);
    const traceId = hexId(16);
    const span = chatSpan(traceId, {
      "pharos.prompt.id": s.promptId,
      "pharos.run_evaluation": true,
      "pharos.variables": JSON.stringify({ question: "Where is my order 8812?", word: "arrives" }),
      // The single-variable attribute wins over the same name in pharos.variables.
      "pharos.variables.word": "ships",
    });
    await exportSpans(h, [span]);

    const stored = await storedSpan(h, span.spanId);
    expect(stored).toMatchObject({ promptId: s.promptId, runEvaluation: 1, contentType: "Model" });
    expect(stored.parsedContent.variables).toEqual({
      question: { modality: "text", value: "Where is my order 8812?" },
      word: { modality: "text", value: "ships" },
    });
    // The ids and the flag stay attributes; the variables became the content's.
    expect(stored.attributes).toMatchObject({ "pharos.prompt.id": s.promptId, "pharos.run_evaluation": true });
    expect(stored.attributes).not.toHaveProperty("pharos.variables");
    expect(stored.attributes).not.toHaveProperty("pharos.variables.word");
    expect(stored.queued).toHaveLength(1);

    const counted = await waitForStats(h, s, (counts) => counts.graded === 1);
    expect(counted).toMatchObject({ queued: 1, graded: 1, passed: 1, failed: 0, pending: 0 });
    const scores = await scoresOf(h, stored.id);
    expect(scores).toHaveLength(1);
    expect(scores[0]).toMatchObject({
      traceId: stored.traceId,
      name: "Ships",
      stringValue: "pass",
      source: "evaluator",
      evaluatorId: s.evaluatorId,
    });
  });

  it("queues spans that attach to an existing trace too, with the trace's user for the filters", async () => {
    const h = use();
    const s = await newPromptWithEvaluator(h, {
      filters: [{ column: "userId", operator: "equals", value: "user-pro" }],
    });
    const traceId = hexId(16);
    const root = chatSpan(traceId, { "user.id": "user-pro" }, { name: "root" });
    await exportSpans(h, [root]);
    // The second request attaches to the stored trace (the locked path); the flag as text, as env vars set it.
    const child = chatSpan(
      traceId,
      {
        "pharos.prompt.id": s.promptId,
        "pharos.run_evaluation": "true",
        "pharos.variables.word": "ships",
      },
      { parentSpanId: root.spanId },
    );
    await exportSpans(h, [child]);
    expect((await storedSpan(h, child.spanId)).queued).toHaveLength(1);
    expect((await storedSpan(h, root.spanId)).queued).toHaveLength(0);

    // Another user's trace is filtered out.
    const other = chatSpan(hexId(16), {
      "user.id": "user-free",
      "pharos.prompt.id": s.promptId,
      "pharos.run_evaluation": true,
      "pharos.variables.word": "ships",
    });
    await exportSpans(h, [other]);
    expect((await storedSpan(h, other.spanId)).queued).toHaveLength(0);
    await waitForStats(h, s, (counts) => counts.graded === 1 && counts.pending === 0);
  });

  it("does not queue a span without pharos.run_evaluation (or with it false): stored with its promptId", async () => {
    const h = use();
    const s = await newPromptWithEvaluator(h);
    const traceId = hexId(16);
    const without = chatSpan(traceId, { "pharos.prompt.id": s.promptId, "pharos.variables.word": "ships" });
    const off = chatSpan(traceId, { "pharos.prompt.id": s.promptId, "pharos.run_evaluation": false });
    await exportSpans(h, [without, off]);
    for (const span of [without, off]) {
      const stored = await storedSpan(h, span.spanId);
      expect(stored).toMatchObject({ promptId: s.promptId, runEvaluation: 0 });
      expect(stored.queued).toHaveLength(0);
    }
    const counted = await ok(h, "GET", `/prompts/${s.promptId}/evaluators/${s.evaluatorId}/online-stats?${WINDOW}`);
    expect(counted).toMatchObject({ queued: 0, graded: 0 });
  });

  it("stores a span naming an unknown prompt (or another project's) without a promptId, not queued, not rejected", async () => {
    const h = use();
    const s = await newPromptWithEvaluator(h);
    const foreign = await ok(h, "POST", "/prompts", { projectId: await newProject(h), title: "Other" });
    const traceId = hexId(16);
    const unknown = chatSpan(traceId, {
      "pharos.prompt.id": "prompt_01JD8Q4M2P1C6AM4X8Y0Z3D5WB",
      "pharos.deployment.id": "deployment_01JD8Q4M2P1C6AM4X8Y0Z3D5WB",
      "pharos.run_evaluation": true,
      "pharos.variables.word": "ships",
    });
    const ofAnotherProject = chatSpan(traceId, { "pharos.prompt.id": foreign.id, "pharos.run_evaluation": true });
    await exportSpans(h, [unknown, ofAnotherProject]);
    for (const [span, promptId] of [
      [unknown, "prompt_01JD8Q4M2P1C6AM4X8Y0Z3D5WB"],
      [ofAnotherProject, foreign.id],
    ] as const) {
      const stored = await storedSpan(h, span.spanId);
      expect(stored).toMatchObject({ promptId: null, deploymentId: null, runEvaluation: 1 });
      expect(stored.attributes["pharos.prompt.id"]).toBe(promptId);
      expect(stored.queued).toHaveLength(0);
    }
    expect((await storedSpan(h, unknown.spanId)).attributes["pharos.deployment.id"]).toBe(
      "deployment_01JD8Q4M2P1C6AM4X8Y0Z3D5WB",
    );
    const counted = await ok(h, "GET", `/prompts/${s.promptId}/evaluators/${s.evaluatorId}/online-stats?${WINDOW}`);
    expect(counted).toMatchObject({ queued: 0 });
  });

  it("sets deploymentId from pharos.deployment.id when it is a deployment of the project and of the span's prompt", async () => {
    const h = use();
    const { deploymentId, promptId } = await newDeployment(h);
    const other = await newPromptWithEvaluator(h);
    const traceId = hexId(16);
    const alone = chatSpan(traceId, { "pharos.deployment.id": deploymentId });
    const matching = chatSpan(traceId, { "pharos.deployment.id": deploymentId, "pharos.prompt.id": promptId });
    const mismatched = chatSpan(traceId, { "pharos.deployment.id": deploymentId, "pharos.prompt.id": other.promptId });
    await exportSpans(h, [alone, matching, mismatched]);
    expect(await storedSpan(h, alone.spanId)).toMatchObject({ deploymentId, promptId: null });
    expect(await storedSpan(h, matching.spanId)).toMatchObject({ deploymentId, promptId });
    const kept = await storedSpan(h, mismatched.spanId);
    expect(kept).toMatchObject({ deploymentId: null, promptId: other.promptId });
    expect(kept.attributes["pharos.deployment.id"]).toBe(deploymentId);
  });

  it("queues the spans of a project with masking rules, its variables masked, with the trace's user kept", async () => {
    const h = use();
    const projectId = await newProject(h);
    await ok(h, "PATCH", `/projects/${projectId}`, { maskingRules: [{ detector: "email" }] });
    const s = await newPromptWithEvaluator(
      h,
      { filters: [{ column: "userId", operator: "equals", value: "u-1" }] },
      projectId,
    );
    const span = chatSpan(hexId(16), {
      "user.id": "u-1",
      "pharos.prompt.id": s.promptId,
      "pharos.run_evaluation": true,
      "pharos.variables.word": "ships",
      "pharos.variables.contact": "ada@example.com",
    });
    await exportSpans(h, [span], projectId);
    const stored = await storedSpan(h, span.spanId, projectId);
    expect(stored.parsedContent.variables.contact).toEqual({ modality: "text", value: "[EMAIL]" });
    const trace = await h.store.db
      .selectFrom("logTraces")
      .select("userId")
      .where("id", "=", stored.traceId)
      .executeTakeFirst();
    expect(trace?.userId).toBe("u-1");
    expect(stored.queued).toHaveLength(1);
    await waitForStats(h, s, (counts) => counts.graded === 1 && counts.passed === 1);
  });
});
