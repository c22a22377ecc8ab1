/**
 * compareEvaluations, every response validated against the spec: two runs of one prompt over one dataset,
 * executed by the kit's worker against the fake provider with two evaluators that pass different rows, so the
 * comparison has a known regression, improvement and unchanged rows. In-process only, like
 * evaluation-execution.test.ts: a remote target cannot reach the kit's fake provider.
 */
import { unwrap } from "@pharos/client";
import { type FakeProvider, startFakeProvider } from "@pharos/server/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorMatrixOf, itProvokedEveryDocumentedStatus, type Send } from "./cases.ts";
import { newDataset, newProject, newPrompt, newProvider, runTag, type Schemas, text, unknownId } from "./fixtures.ts";
import { expectError, expectStatus } from "./replies.ts";
import { useTarget } from "./target.ts";

type Run = Schemas["EvaluationRun"];

const remote = Boolean(process.env.PHAROS_BASE_URL);
const use = useTarget();
const itAnswersTheErrorMatrix = errorMatrixOf(use, () => projectId);
const tag = runTag();

let fake: FakeProvider;
/** A project of the kit's own, so that keys restricted to the target's project are restricted to another. */
let projectId: string;
let promptId: string;
let datasetId: string;
/** Passes questions 0 and 1: the baseline. */
let baseline: Run;
/** Passes questions 1 and 2: question 0 regressed, question 2 improved, 1 and 3 unchanged. */
let candidate: Run;
/** A completed run over another dataset. */
let otherDatasetRun: Run;

async function evaluator(value: string[]) {
  const { client } = use();
  const body = {
    projectId,
    title: `Mentions ${value.join(" or ")}`,
    datasetId,
    config: { type: "text-matcher" as const, operator: "contains-any" as const, value },
  };
  return unwrap(await client.POST("/prompts/{promptId}/evaluators", { params: { path: { promptId } }, body })).id;
}

async function runToCompletion(body: Schemas["CreateEvaluationRequest"]): Promise<Run> {
  const { client } = use();
  const started = await client.POST("/prompts/{promptId}/evaluations", { params: { path: { promptId } }, body });
  expectStatus(started, 202);
  const runId = (started.data as Run).runId;
  for (let attempt = 0; attempt < 500; attempt++) {
    const run = unwrap(
      await client.GET("/prompts/{promptId}/evaluations/{evaluationId}", {
        params: { path: { promptId, evaluationId: runId } },
      }),
    );
    if (run.status === "completed") return run;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`run ${runId} did not complete`);
}

const compare: Send = (client, extra, id = candidate.runId, parent = promptId) =>
  client.GET("/prompts/{promptId}/evaluations/{evaluationId}/comparison", {
    params: { path: { promptId: parent, evaluationId: id }, query: { baselineId: baseline.runId } },
    ...extra,
  });

describe.skipIf(remote)("compareEvaluations", () => {
  beforeAll(async () => {
    fake = await startFakeProvider();
    const { client, admin } = use();
    projectId = (await newProject(client, `Comparisons ${tag}`)).id;
    admin?.startEvaluationWorker({ concurrency: 2 });
    const provider = await newProvider(client, {
      provider: "openai-compatible",
      displayName: `Fake ${tag}`,
      baseUrl: `${fake.url}/v1`,
    });
    promptId = (
      await newPrompt(client, projectId, {
        title: `Compared ${tag}`,
        draft: {
          config: { provider: "openai-compatible", providerId: provider.id, model: "fake-model" },
          messages: [{ role: "user", content: [text("{{question}}")] }],
        },
      })
    ).id;
    datasetId = (
      await newDataset(client, projectId, {
        title: `Questions ${tag}`,
        columns: [{ name: "question", type: "static" }],
      })
    ).id;
    unwrap(
      await client.POST("/datasets/{datasetId}/rows", {
        params: { path: { datasetId } },
        body: { rows: [0, 1, 2, 3].map((index) => ({ values: { question: `question ${index}` } })) },
      }),
    );
    baseline = await runToCompletion({ evaluatorId: await evaluator(["question 0", "question 1"]) });
    candidate = await runToCompletion({ evaluatorId: await evaluator(["question 1", "question 2"]) });
    const otherDataset = await newDataset(client, projectId, {
      title: `Other ${tag}`,
      columns: [{ name: "question", type: "static" }],
    });
    otherDatasetRun = await runToCompletion({ evaluatorId: candidate.evaluatorId, datasetId: otherDataset.id });
  });
  afterAll(async () => {
    await fake?.close();
  });

  it("200: the regressed, improved and unchanged rows side by side, totals with deltas", async () => {
    const reply = await compare(use().client, {});
    expectStatus(reply, 200);
    const comparison = reply.data as Schemas["EvaluationComparison"];
    expect(comparison.rows.map((row) => [row.candidate?.output, row.change])).toEqual([
      ["Echo: question 0", "regressed"],
      ["Echo: question 1", "unchanged"],
      ["Echo: question 2", "improved"],
      ["Echo: question 3", "unchanged"],
    ]);
    expect(comparison.totals.changes).toEqual({
      regressed: 1,
      improved: 1,
      changed: 0,
      unchanged: 2,
      added: 0,
      removed: 0,
    });
    expect(comparison.totals.delta.passRate).toBe(0);
  });

  it("200: filtered to the regressions, one page at a time", async () => {
    const reply = await use().client.GET("/prompts/{promptId}/evaluations/{evaluationId}/comparison", {
      params: {
        path: { promptId, evaluationId: candidate.runId },
        query: { baselineId: baseline.runId, change: "regressed", limit: 1 },
      },
    });
    expectStatus(reply, 200);
    expect(reply.data?.rows.map((row) => row.change)).toEqual(["regressed"]);
    expect(reply.data?.pagination).toEqual({ limit: 1, returned: 1, hasMore: false, nextCursor: null });
  });

  it("400 VALIDATION_ERROR for runs of different datasets, an unknown change and a missing baselineId", async () => {
    const { client } = use();
    const path = { promptId, evaluationId: candidate.runId };
    for (const query of [{ baselineId: otherDatasetRun.runId }, { baselineId: baseline.runId, change: "worse" }, {}]) {
      const reply = await client.GET("/prompts/{promptId}/evaluations/{evaluationId}/comparison", {
        params: { path, query } as never,
      });
      expectError(reply, 400, "VALIDATION_ERROR");
    }
  });

  it("404 RESOURCE_NOT_FOUND for an unknown baseline", async () => {
    const reply = await use().client.GET("/prompts/{promptId}/evaluations/{evaluationId}/comparison", {
      params: { path: { promptId, evaluationId: candidate.runId }, query: { baselineId: unknownId("evalrun") } },
    });
    expectError(reply, 404, "RESOURCE_NOT_FOUND");
  });

  itAnswersTheErrorMatrix({
    access: "read",
    send: compare,
    unknown: "evalrun",
    elsewhere: { parent: "prompt", create: async (client) => (await newPrompt(client, projectId)).id },
  });

  itProvokedEveryDocumentedStatus(use, ["compareEvaluations"]);
});
