/**
 * Evaluation runs as they execute, every response validated against the spec: a run polled from `queued`
 * through `running` to `completed`, its results in every sort with the rows expanded, and a run cancelled
 * while rows are in flight (`cancelling`, then `cancelled`). In-process only: the kit starts an evaluation
 * worker beside its app and points a provider record at the fake provider, a real HTTP server on loopback.
 */
import { unwrap } from "@pharos/client";
import { type FakeProvider, startFakeProvider } from "@pharos/server/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inProcessOnly } from "./cases.ts";
import { newDataset, newPrompt, newProvider, runTag, type Schemas, text } from "./fixtures.ts";
import { expectError, expectStatus } from "./replies.ts";
import { useTarget } from "./target.ts";

type Run = Schemas["EvaluationRun"];

const use = useTarget();
const tag = runTag();
let fake: FakeProvider;

beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(async () => {
  await fake.close();
});

/** A prompt on the fake provider asking `{{question}}`, a dataset of `rows` questions and a text-matcher evaluator. */
async function runnable(rows: number) {
  const { client, projectId } = use();
  const provider = await newProvider(client, {
    provider: "openai-compatible",
    displayName: `Fake ${tag} ${runTag()}`,
    baseUrl: `${fake.url}/v1`,
  });
  const prompt = await newPrompt(client, projectId, {
    title: `Executed ${tag}`,
    draft: {
      config: { provider: "openai-compatible", providerId: provider.id, model: "fake-model" },
      messages: [{ role: "user", content: [text("{{question}}")] }],
    },
  });
  const dataset = await newDataset(client, projectId, {
    title: `Questions ${tag}`,
    columns: [{ name: "question", type: "static" }],
  });
  unwrap(
    await client.POST("/datasets/{datasetId}/rows", {
      params: { path: { datasetId: dataset.id } },
      body: { rows: Array.from({ length: rows }, (_, index) => ({ values: { question: `question ${index}` } })) },
    }),
  );
  unwrap(
    await client.POST("/prompts/{promptId}/evaluators", {
      params: { path: { promptId: prompt.id } },
      body: {
        projectId,
        title: "Mentions the first questions",
        datasetId: dataset.id,
        config: { type: "text-matcher", operator: "contains-any", value: ["question 0", "question 1"] },
      },
    }),
  );
  const reply = await client.POST("/prompts/{promptId}/evaluations", {
    params: { path: { promptId: prompt.id } },
    body: {},
  });
  expectStatus(reply, 202);
  return { promptId: prompt.id, run: reply.data as Run };
}

async function poll(promptId: string, runId: string, until: (run: Run) => boolean): Promise<Run> {
  for (let attempt = 0; attempt < 500; attempt++) {
    const run = unwrap(
      await use().client.GET("/prompts/{promptId}/evaluations/{evaluationId}", {
        params: { path: { promptId, evaluationId: runId } },
      }),
    );
    if (until(run)) return run;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`run ${runId} did not get there`);
}

describe("evaluation runs executing", () => {
  it("200 at every step from queued to completed; results in every sort, filtered, with rows expanded", async (ctx) => {
    inProcessOnly(ctx, use(), "an evaluation worker").startEvaluationWorker({ concurrency: 2 });
    fake.configure({ latencyMs: 5 });
    const { promptId, run } = await runnable(4);
    const done = await poll(promptId, run.runId, (current) => current.status === "completed");
    expect(done).toMatchObject({
      progress: { totalRows: 4, completedRows: 4, failedRows: 0, percent: 100 },
      metrics: { passRuns: 2, failRuns: 2, unknownRuns: 0 },
    });
    const path = { promptId, evaluationId: run.runId };
    for (const sort of ["createdAt:asc", "createdAt:desc", "score:asc", "score:desc"] as const) {
      const page = unwrap(
        await use().client.GET("/prompts/{promptId}/evaluations/{evaluationId}/results", {
          params: { path, query: { sort, expand: "row", limit: 3 } },
        }),
      );
      expect(page.results).toHaveLength(3);
      expect(page.pagination.hasMore).toBe(true);
      for (const result of page.results) expect(result.row?.id).toBe(result.rowId);
    }
    const failing = unwrap(
      await use().client.GET("/prompts/{promptId}/evaluations/{evaluationId}/results", {
        params: { path, query: { grade: "fail" } },
      }),
    );
    expect(failing.results.map((result) => result.output).sort()).toEqual(["Echo: question 2", "Echo: question 3"]);
    expectError(
      await use().client.POST("/prompts/{promptId}/evaluations/{evaluationId}/cancel", { params: { path } }),
      409,
      "CONFLICT",
    );
  });

  it("200 cancelling while rows are in flight, then cancelled with the finished rows' results", async (ctx) => {
    inProcessOnly(ctx, use(), "an evaluation worker");
    fake.configure({ latencyMs: 150 });
    const { promptId, run } = await runnable(12);
    await poll(promptId, run.runId, (current) => current.status === "running");
    const path = { promptId, evaluationId: run.runId };
    const cancelled = unwrap(
      await use().client.POST("/prompts/{promptId}/evaluations/{evaluationId}/cancel", { params: { path } }),
    );
    expect(cancelled.status).toBe("cancelling");
    const again = unwrap(
      await use().client.POST("/prompts/{promptId}/evaluations/{evaluationId}/cancel", { params: { path } }),
    );
    expect(again.status).toMatch(/^cancel(ling|led)$/);
    const ended = await poll(promptId, run.runId, (current) => current.status === "cancelled");
    const results = unwrap(
      await use().client.GET("/prompts/{promptId}/evaluations/{evaluationId}/results", {
        params: { path, query: { limit: 50 } },
      }),
    );
    expect(results.results.length).toBe(ended.progress.completedRows + ended.progress.failedRows);
    expect(results.results.length).toBeLessThan(12);
  });
});
