/**
 * Evaluation runs end to end, in process: the API queues a run, a worker on the same database executes it
 * against the fake provider (a real HTTP server on loopback speaking the OpenAI and Anthropic protocols), and
 * the results, progress and metrics are read back through the API.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { type FakeProvider, startFakeProvider } from "../testing/fake-provider.ts";
import { describeEachStore, type Harness } from "../testing/harness.ts";
import type { EvaluationWorker } from "./evaluation-worker.ts";

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(async () => {
  await fake.close();
});

const QUESTIONS = ["What is 2+2?", "Name a colour", "Say hello", "Spell cat", "Count to three"];

interface Setup {
  promptId: string;
  datasetId: string;
  evaluatorId: string;
  providerId: string;
}

let sequence = 0;

async function ok(h: Harness, method: string, path: string, body?: unknown) {
  const reply = await h.request(method, path, { body });
  expect(reply.status, `${method} ${path}: ${JSON.stringify(reply.body)}`).toBeLessThan(300);
  return reply.body;
}

/**
 * A provider record on the fake, a prompt asking `{{question}}`, a dataset with `question`/`expected` rows, and
 * an evaluator with `config`.
 */
async function setup(
  h: Harness,
  config: Record<string, unknown>,
  options: {
    provider?: "openai" | "anthropic" | "openai-compatible";
    model?: string;
    rows?: Record<string, unknown>[];
    messageText?: string;
  } = {},
): Promise<Setup> {
  const kind = options.provider ?? "openai";
  const provider = await ok(h, "POST", "/providers", {
    provider: kind,
    displayName: `Fake ${++sequence}`,
    baseUrl: `${fake.url}/v1`,
    credentials: { apiKey: "sk-fake" },
  });
  const prompt = await ok(h, "POST", "/prompts", {
    projectId: h.projectId,
    title: "Answer",
    draft: {
      config: { provider: kind, providerId: provider.id, model: options.model ?? "gpt-4o-mini" },
      messages: [
        { role: "system", content: [{ modality: "text", value: "Answer briefly." }] },
        { role: "user", content: [{ modality: "text", value: options.messageText ?? "{{question}}" }] },
      ],
    },
  });
  const dataset = await ok(h, "POST", "/datasets", {
    projectId: h.projectId,
    title: "Questions",
    columns: [
      { name: "question", type: "static" },
      { name: "expected", type: "static" },
    ],
  });
  const rows = options.rows ?? QUESTIONS.map((question) => ({ question, expected: `Echo: ${question}` }));
  for (let start = 0; start < rows.length; start += 100) {
    await ok(h, "POST", `/datasets/${dataset.id}/rows`, {
      rows: rows.slice(start, start + 100).map((values) => ({ values })),
    });
  }
  const evaluator = await ok(h, "POST", `/prompts/${prompt.id}/evaluators`, {
    projectId: h.projectId,
    datasetId: dataset.id,
    title: "Check",
    config,
  });
  return { promptId: prompt.id, datasetId: dataset.id, evaluatorId: evaluator.id, providerId: provider.id };
}

async function startRun(h: Harness, s: Setup) {
  const reply = await h.request("POST", `/prompts/${s.promptId}/evaluations`, { body: { evaluatorId: s.evaluatorId } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(202);
  expect(reply.body.status).toBe("queued");
  return reply.body.runId as string;
}

async function waitForRun(h: Harness, s: Setup, runId: string, until: (run: any) => boolean = isTerminal) {
  let run: any;
  for (let attempt = 0; attempt < 1000; attempt++) {
    run = await ok(h, "GET", `/prompts/${s.promptId}/evaluations/${runId}`);
    if (until(run)) return run;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`run ${runId} did not get there: ${JSON.stringify(run)}`);
}

const isTerminal = (run: { status: string }) => ["completed", "failed", "cancelled"].includes(run.status);

async function results(h: Harness, s: Setup, runId: string, query = "") {
  const reply = await ok(h, "GET", `/prompts/${s.promptId}/evaluations/${runId}/results?limit=200${query}`);
  return reply.results as any[];
}

const chatRequests = () => fake.requests.filter((request) => request.method === "POST");

describeEachStore("evaluation runs", (use) => {
  let worker: EvaluationWorker;
  beforeAll(async () => {
    worker = await use().startWorker({ concurrency: 3, providerMaxRetries: 2 });
  });
  const reset = () => {
    fake.configure({ latencyMs: 0, fail: undefined, reply: undefined, verdict: undefined });
    fake.reset();
  };

  it("runs a text-matcher evaluator over every row: results, progress, metrics and timeline", async () => {
    const h = use();
    reset();
    const s = await setup(h, { type: "text-matcher", operator: "equals", value: "Echo: {{question}}" });
    const runId = await startRun(h, s);
    const run = await waitForRun(h, s, runId);
    expect(run).toMatchObject({
      status: "completed",
      error: null,
      deploymentId: null,
      progress: { totalRows: 5, completedRows: 5, failedRows: 0, percent: 100 },
      metrics: { passRuns: 5, failRuns: 0, unknownRuns: 0 },
    });
    expect(run.timeline.startedAt).toBeGreaterThanOrEqual(run.timeline.submittedAt);
    expect(run.timeline.finishedAt).toBeGreaterThanOrEqual(run.timeline.startedAt);
    const rows = await results(h, s, runId, "&sort=createdAt:asc");
    expect(rows).toHaveLength(5);
    expect(rows.map((row) => row.output).sort()).toEqual(QUESTIONS.map((question) => `Echo: ${question}`).sort());
    for (const row of rows) {
      expect(row).toMatchObject({ grade: "pass", score: 1, error: null });
      expect(row.tokenCount).toBeGreaterThan(0);
      // gpt-4o-mini has a price: the cost follows from the fake's token counts.
      expect(row.cost).toBeGreaterThan(0);
    }
    const sum = (key: string) => rows.reduce((total, row) => total + row[key], 0);
    expect(run.metrics.totalTokenCount).toBe(sum("tokenCount"));
    expect(run.metrics.totalCost).toBeCloseTo(sum("cost"), 12);
    expect(run.metrics.totalLatency).toBeCloseTo(sum("latency"), 6);
    // The provider saw the rendered prompt, the model and the key.
    const sent = chatRequests();
    expect(sent).toHaveLength(5);
    expect(sent[0]?.headers.authorization).toBe("Bearer sk-fake");
    expect(sent.map((request) => JSON.stringify(request.body))).toEqual(
      expect.arrayContaining(
        QUESTIONS.map((question) => expect.stringContaining(JSON.stringify(question).slice(1, -1))),
      ),
    );
  });

  it("grades with every deterministic evaluator type", async () => {
    const h = use();
    reset();
    const cases: [Record<string, unknown>, string][] = [
      [{ type: "text-matcher", operator: "contains-any", value: ["colour", "cat"] }, "fail,pass,fail,pass,fail"],
      [{ type: "json", mode: "valid-json" }, "fail,fail,fail,fail,fail"],
      [
        {
          type: "javascript",
          code: "const ok = data.output.length > 12 && data.variables.question.length > 0; return { grade: ok ? 'pass' : 'fail', score: ok ? 1 : 0, reason: String(data.output.length) };",
        },
        "pass,pass,fail,pass,pass",
      ],
      [{ type: "cost", operator: "less-than", threshold: 1 }, "pass,pass,pass,pass,pass"],
      [{ type: "latency", operator: "less-than", threshold: 60, unit: "s" }, "pass,pass,pass,pass,pass"],
      [{ type: "response-length", operator: "greater-than", threshold: 2, unit: "words" }, "pass,pass,fail,pass,pass"],
    ];
    const rows = ["What is 2+2?", "Name a colour", "Hi", "Spell cat", "Count to three"].map((question) => ({
      question,
    }));
    for (const [config, expected] of cases) {
      const s = await setup(h, config, { rows });
      const runId = await startRun(h, s);
      const run = await waitForRun(h, s, runId);
      expect(run.status, JSON.stringify(config)).toBe("completed");
      const byQuestion = new Map<string, string>();
      const rowList = await ok(h, "GET", `/datasets/${s.datasetId}/rows?limit=200`);
      const questionOf = new Map<string, string>(
        rowList.rows.map((row: any) => [row.id, Object.values(row.values)[0] as string]),
      );
      for (const result of await results(h, s, runId))
        byQuestion.set(questionOf.get(result.rowId) as string, result.grade);
      expect(rows.map((row) => byQuestion.get(row.question)).join(","), JSON.stringify(config)).toBe(expected);
    }
  });

  it("runs an llm-as-a-judge evaluator through the judge model (on Anthropic too)", async () => {
    const h = use();
    for (const provider of ["openai", "anthropic"] as const) {
      reset();
      fake.configure({
        verdict: (request) =>
          JSON.stringify(request.body).includes("colour")
            ? { grade: "fail", score: 0.2, reason: "mentions a colour" }
            : { grade: "pass", score: 0.9, reason: "fine" },
      });
      const s = await setup(
        h,
        { type: "llm-as-a-judge", value: "Pass if the answer echoes {{question}}." },
        { provider, model: provider === "anthropic" ? "claude-3-5-haiku-latest" : "gpt-4o-mini" },
      );
      const runId = await startRun(h, s);
      const run = await waitForRun(h, s, runId);
      expect(run).toMatchObject({ status: "completed", metrics: { passRuns: 4, failRuns: 1, unknownRuns: 0 } });
      const graded = await results(h, s, runId, "&grade=fail");
      expect(graded).toHaveLength(1);
      expect(graded[0]).toMatchObject({ score: 0.2, reason: "mentions a colour", output: "Echo: Name a colour" });
      // One call to the prompt's model and one to the judge per row; the judge saw the filled rubric.
      expect(chatRequests()).toHaveLength(10);
      expect(JSON.stringify(chatRequests().map((request) => request.body))).toContain("echoes Say hello");
      if (provider === "anthropic") expect(chatRequests()[0]?.headers["x-api-key"]).toBe("sk-fake");
    }
  });

  it("fails a run whose dataset lacks a column for a prompt variable, before any model call", async () => {
    const h = use();
    reset();
    const s = await setup(
      h,
      { type: "cost", operator: "less-than", threshold: 1 },
      {
        messageText: "{{question}} in the style of {{persona}}",
      },
    );
    const runId = await startRun(h, s);
    const run = await waitForRun(h, s, runId);
    expect(run).toMatchObject({
      status: "failed",
      progress: { completedRows: 0, failedRows: 0 },
      timeline: { startedAt: null },
    });
    expect(run.error).toContain("{{persona}}");
    expect(run.timeline.finishedAt).not.toBeNull();
    expect(chatRequests()).toHaveLength(0);
  });

  it("records a failed row for an empty variable, a provider that keeps failing, or a deleted provider", async () => {
    const h = use();
    reset();
    fake.configure({
      fail: (request) => (JSON.stringify(request.body).includes("boom") ? { status: 500 } : undefined),
    });
    const s = await setup(
      h,
      { type: "latency", operator: "less-than", threshold: 60, unit: "s" },
      {
        rows: [{ question: "fine" }, { question: "boom" }, { question: null }],
      },
    );
    const runId = await startRun(h, s);
    const run = await waitForRun(h, s, runId);
    expect(run).toMatchObject({
      status: "completed",
      progress: { totalRows: 3, completedRows: 1, failedRows: 2, percent: 100 },
      metrics: { passRuns: 1, failRuns: 0, unknownRuns: 2 },
    });
    const failed = await results(h, s, runId, "&grade=unknown");
    const errors = failed.map((result) => result.error as string);
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/returned 500 after 3 attempts/),
        expect.stringContaining("{{question}}"),
      ]),
    );
    for (const result of failed) expect(result).toMatchObject({ score: 0, reason: "", output: null, cost: 0 });
    // The 500 was retried (maxRetries 2): three attempts for that row, one for the fine row.
    expect(chatRequests().filter((request) => JSON.stringify(request.body).includes("boom"))).toHaveLength(3);

    reset();
    await ok(h, "DELETE", `/providers/${s.providerId}`);
    const again = await startRun(h, s);
    const orphan = await waitForRun(h, s, again);
    expect(orphan.progress).toMatchObject({ completedRows: 0, failedRows: 3 });
    const orphaned = (await results(h, s, again)).map((result) => result.error as string);
    expect(orphaned.filter((error) => /provider record .* does not exist/.test(error))).toHaveLength(2);
    expect(chatRequests()).toHaveLength(0);
  });

  it("evaluates at most `concurrency` rows at once and cancels mid-run: in-flight rows finish, no new ones start", async () => {
    const h = use();
    reset();
    fake.configure({ latencyMs: 60 });
    const rows = Array.from({ length: 24 }, (_, index) => ({ question: `question ${index}` }));
    const s = await setup(h, { type: "cost", operator: "less-than", threshold: 1 }, { rows });
    const runId = await startRun(h, s);
    await waitForRun(h, s, runId, (run) => run.progress.completedRows >= 3);
    const cancel = await h.request("POST", `/prompts/${s.promptId}/evaluations/${runId}/cancel`);
    expect(cancel.status).toBe(200);
    expect(["cancelling", "cancelled"]).toContain(cancel.body.status);
    const run = await waitForRun(h, s, runId);
    expect(run.status).toBe("cancelled");
    expect(run.timeline.finishedAt).not.toBeNull();
    const recorded = await results(h, s, runId);
    expect(recorded.length).toBe(run.progress.completedRows + run.progress.failedRows);
    expect(recorded.length).toBeLessThan(24);
    expect(fake.maxInFlight).toBeLessThanOrEqual(3);
    // Nothing starts after the run is cancelled.
    const calls = chatRequests().length;
    expect(calls).toBe(recorded.length);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(chatRequests().length).toBe(calls);
    const again = await h.request("POST", `/prompts/${s.promptId}/evaluations/${runId}/cancel`);
    expect(again.status).toBe(409);
  });

  it("keeps working when a prompt is deleted with its run in flight", async () => {
    const h = use();
    reset();
    fake.configure({ latencyMs: 40 });
    const rows = Array.from({ length: 12 }, (_, index) => ({ question: `doomed ${index}` }));
    const doomed = await setup(h, { type: "cost", operator: "less-than", threshold: 1 }, { rows });
    const runId = await startRun(h, doomed);
    await waitForRun(h, doomed, runId, (run) => run.progress.completedRows >= 1);
    expect((await h.request("DELETE", `/prompts/${doomed.promptId}`)).status).toBe(204);
    expect((await h.request("GET", `/prompts/${doomed.promptId}/evaluations/${runId}`)).status).toBe(404);
    const next = await setup(h, { type: "cost", operator: "less-than", threshold: 1 });
    const run = await waitForRun(h, next, await startRun(h, next));
    expect(run).toMatchObject({ status: "completed", progress: { completedRows: 5 } });
  });

  it("evaluates a deployment's snapshot rather than the draft when the request names one", async () => {
    const h = use();
    reset();
    const s = await setup(
      h,
      { type: "text-matcher", operator: "starts-with", value: "Echo: Deployed" },
      {
        messageText: "Deployed {{question}}",
      },
    );
    const environment = await ok(h, "POST", `/projects/${h.projectId}/deployment-environments`, {
      name: `env-${++sequence}`,
    });
    const deployment = await ok(h, "POST", `/prompts/${s.promptId}/deployments`, {
      deploymentEnvironmentId: environment.id,
    });
    // Change the draft after deploying: the run uses the deployment.
    await ok(h, "PATCH", `/prompts/${s.promptId}`, {
      messages: [{ role: "user", content: [{ modality: "text", value: "Draft {{question}}" }] }],
    });
    const reply = await h.request("POST", `/prompts/${s.promptId}/evaluations`, {
      body: { evaluatorId: s.evaluatorId, deploymentId: deployment.id },
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(202);
    const run = await waitForRun(h, s, reply.body.runId);
    expect(run).toMatchObject({ status: "completed", metrics: { passRuns: 5 } });
  });

  it("is resumed by another worker when a worker stops holding rows", async () => {
    const h = use();
    reset();
    fake.configure({ latencyMs: 30 });
    await worker.stop(0);
    const rows = Array.from({ length: 12 }, (_, index) => ({ question: `resumable ${index}` }));
    const s = await setup(h, { type: "cost", operator: "less-than", threshold: 1 }, { rows });
    const first = await h.startWorker({ concurrency: 4 });
    const runId = await startRun(h, s);
    await waitForRun(h, s, runId, (run) => run.progress.completedRows >= 2);
    await first.stop(0);
    worker = await h.startWorker({ concurrency: 3 });
    const run = await waitForRun(h, s, runId);
    expect(run).toMatchObject({ status: "completed", progress: { completedRows: 12, failedRows: 0 } });
    const recorded = await results(h, s, runId);
    expect(new Set(recorded.map((result) => result.rowId)).size).toBe(12);
    expect(recorded).toHaveLength(12);
  });
});
