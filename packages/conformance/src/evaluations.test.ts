/**
 * Evaluation runs through the client, every response validated against the spec. This file's target runs no
 * evaluation worker, so runs stay `queued` until cancelled and have no results: the scenarios cover what the
 * API decides by itself (acceptance, defaults, lookups, cancellation of a queued run, empty result pages).
 * Runs that execute are in evaluation-execution.test.ts.
 */
import { type PharosClient, paginate, unwrap } from "@pharos/client";
import { beforeAll, describe, expect, it } from "vitest";
import { errorMatrixOf, itProvokedEveryDocumentedStatus, type Send } from "./cases.ts";
import {
  deploy,
  fullDraft,
  newDataset,
  newEnvironment,
  newEvaluator,
  newProject,
  newPrompt,
  runTag,
  type Schemas,
  unknownId,
} from "./fixtures.ts";
import { expectError, expectStatus } from "./replies.ts";
import { useTarget } from "./target.ts";

type Run = Schemas["EvaluationRun"];

const use = useTarget();
const itAnswersTheErrorMatrix = errorMatrixOf(use, () => projectId);
const tag = runTag();

let projectId: string;
/** A runnable prompt (its draft names a provider and a model) with one active evaluator. */
let prompt: Schemas["Prompt"];
let dataset: Schemas["Dataset"];
let evaluator: Schemas["Evaluator"];
/** A queued run of `prompt`, the target of the shared cases. */
let queued: Run;
/** A dataset of another project of the workspace. */
let foreignDataset: Schemas["Dataset"];

const columns = [
  { name: "product", type: "static" as const },
  { name: "question", type: "static" as const },
];

async function start(promptId: string, body: Schemas["CreateEvaluationRequest"] = {}): Promise<Run> {
  const reply = await use().client.POST("/prompts/{promptId}/evaluations", { params: { path: { promptId } }, body });
  expectStatus(reply, 202);
  return reply.data as Run;
}

beforeAll(async () => {
  const { client } = use();
  projectId = (await newProject(client, `Evaluations ${tag}`)).id;
  prompt = await newPrompt(client, projectId, { title: `Evaluated ${tag}`, draft: fullDraft });
  dataset = await newDataset(client, projectId, { title: `Cases ${tag}`, columns });
  unwrap(
    await client.POST("/datasets/{datasetId}/rows", {
      params: { path: { datasetId: dataset.id } },
      body: { rows: [{ values: { product: "Pharos", question: "What is it?" } }, { values: { question: "Why?" } }] },
    }),
  );
  evaluator = await newEvaluator(client, prompt, dataset.id);
  foreignDataset = await newDataset(client, (await newProject(client, `Elsewhere ${tag}`)).id, { title: "Foreign" });
  queued = await start(prompt.id, { evaluatorId: evaluator.id });
});

const runPath = (run: Run = queued) => ({ promptId: prompt.id, evaluationId: run.runId });
/** Another prompt of the project: a run is not found under it. */
const anotherPrompt = { parent: "prompt", create: async () => (await newPrompt(use().client, projectId)).id };
/** Reads a run: what a refused change must leave as it was. */
const readRun = (run: () => Run) => async (client: PharosClient) =>
  unwrap(await client.GET("/prompts/{promptId}/evaluations/{evaluationId}", { params: { path: runPath(run()) } }));

describe("createEvaluation", () => {
  const send: Send = (client, extra) =>
    client.POST("/prompts/{promptId}/evaluations", {
      params: { path: { promptId: prompt.id } },
      body: { evaluatorId: evaluator.id },
      ...extra,
    });
  const create = (promptId: string, body: Record<string, unknown>) =>
    use().client.POST("/prompts/{promptId}/evaluations", { params: { path: { promptId } }, body: body as never });

  it("202: queues a run of the draft with the only active evaluator and its dataset", async () => {
    const run = await start(prompt.id);
    expect(run).toMatchObject({
      promptId: prompt.id,
      evaluatorId: evaluator.id,
      datasetId: dataset.id,
      deploymentId: null,
      status: "queued",
      progress: { totalRows: 2, completedRows: 0, failedRows: 0, percent: 0 },
      timeline: { startedAt: null, finishedAt: null },
      error: null,
    });
  });

  it("202: evaluates a deployment of the prompt, over a dataset named in the request", async () => {
    const { client } = use();
    const environment = await newEnvironment(client, projectId, `eval-${tag}`);
    const deployment = await deploy(client, prompt.id, environment.id);
    const empty = await newDataset(client, projectId, { title: "Empty", columns });
    const run = await start(prompt.id, { deploymentId: deployment.id, datasetId: empty.id });
    expect(run).toMatchObject({
      deploymentId: deployment.id,
      datasetId: empty.id,
      progress: { totalRows: 0, percent: 100 },
    });
  });

  it("400 VALIDATION_ERROR for an unknown field, a short id, an id that is not a string, and a dataset of another project", async () => {
    for (const body of [
      { title: "x" },
      { evaluatorId: "evaluator_1" },
      { datasetId: 5 },
      { datasetId: foreignDataset.id },
    ]) {
      expectError(await create(prompt.id, body), 400, "VALIDATION_ERROR");
    }
  });

  it("400 VALIDATION_ERROR without evaluatorId when the prompt has no active evaluator or several", async () => {
    const { client } = use();
    const none = await newPrompt(client, projectId, { title: "No evaluator", draft: fullDraft });
    expectError(await create(none.id, {}), 400, "VALIDATION_ERROR");
    const several = await newPrompt(client, projectId, { title: "Two evaluators", draft: fullDraft });
    await newEvaluator(client, several, dataset.id, "One");
    await newEvaluator(client, several, dataset.id, "Two");
    expectError(await create(several.id, {}), 400, "VALIDATION_ERROR");
  });

  it("400 VALIDATION_ERROR for a prompt version without provider and model", async () => {
    const { client } = use();
    const bare = await newPrompt(client, projectId, { title: "No model" });
    await newEvaluator(client, bare, dataset.id);
    expectError(await create(bare.id, {}), 400, "VALIDATION_ERROR");
  });

  it("404 RESOURCE_NOT_FOUND for an unknown prompt, evaluator, dataset or deployment, and another prompt's evaluator or deployment", async () => {
    const { client } = use();
    const other = await newPrompt(client, projectId, { title: "Other", draft: fullDraft });
    const othersEvaluator = await newEvaluator(client, other, dataset.id);
    const othersDeployment = await deploy(
      client,
      other.id,
      (await newEnvironment(client, projectId, `other-${tag}`)).id,
    );
    expectError(await create(unknownId("prompt"), {}), 404, "RESOURCE_NOT_FOUND");
    for (const body of [
      { evaluatorId: unknownId("evaluator") },
      { evaluatorId: othersEvaluator.id },
      { datasetId: unknownId("dataset") },
      { deploymentId: unknownId("deployment") },
      { deploymentId: othersDeployment.id },
    ]) {
      expectError(await create(prompt.id, body), 404, "RESOURCE_NOT_FOUND");
    }
  });

  it("409 CONFLICT for an archived evaluator", async () => {
    const { client } = use();
    const archived = await newEvaluator(client, prompt, dataset.id, "Archived");
    unwrap(
      await client.PATCH("/prompts/{promptId}/evaluators/{evaluatorId}", {
        params: { path: { promptId: prompt.id, evaluatorId: archived.id } },
        body: { status: "archived" },
      }),
    );
    expectError(await create(prompt.id, { evaluatorId: archived.id }), 409, "CONFLICT");
  });

  itAnswersTheErrorMatrix({ access: "write", send, body: true });
});

describe("listEvaluations", () => {
  const send: Send = (client, extra, id = prompt.id) =>
    client.GET("/prompts/{promptId}/evaluations", { params: { path: { promptId: id } }, ...extra });

  it("200: the prompt's runs newest first, filtered and paged", async () => {
    const { client } = use();
    const listed = await newPrompt(client, projectId, { title: "Listed", draft: fullDraft });
    const listedEvaluator = await newEvaluator(client, listed, dataset.id);
    const made = [];
    for (let i = 0; i < 3; i++) made.push((await start(listed.id)).runId);
    const cancelled = unwrap(
      await client.POST("/prompts/{promptId}/evaluations/{evaluationId}/cancel", {
        params: { path: { promptId: listed.id, evaluationId: made[0] as string } },
      }),
    );
    const page = await client.GET("/prompts/{promptId}/evaluations", {
      params: { path: { promptId: listed.id }, query: { limit: 2 } },
    });
    expectStatus(page, 200);
    expect(page.data?.evaluations.map((r) => r.runId)).toEqual([made[2], made[1]]);
    const all = [];
    for await (const r of paginate(client, "GET", "/prompts/{promptId}/evaluations", {
      params: { path: { promptId: listed.id }, query: { limit: 2, sort: "createdAt:asc" } },
    })) {
      all.push(r.runId);
    }
    expect(all).toEqual(made);
    const filtered = unwrap(
      await client.GET("/prompts/{promptId}/evaluations", {
        params: {
          path: { promptId: listed.id },
          query: { status: "cancelled", evaluatorId: listedEvaluator.id, datasetId: dataset.id },
        },
      }),
    );
    expect(filtered.evaluations).toEqual([cancelled]);
  });

  it("400 for an unknown status or sort, a short evaluatorId, a page size over 200 (VALIDATION_ERROR) and a cursor of another query (INVALID_CURSOR)", async () => {
    const { client } = use();
    const path = { promptId: prompt.id };
    for (const query of [{ status: "done" }, { sort: "score:asc" }, { evaluatorId: "evaluator_1" }, { limit: 201 }]) {
      const reply = await client.GET("/prompts/{promptId}/evaluations", { params: { path, query } as never });
      expectError(reply, 400, "VALIDATION_ERROR");
    }
    await start(prompt.id);
    const first = unwrap(
      await client.GET("/prompts/{promptId}/evaluations", { params: { path, query: { limit: 1 } } }),
    );
    const cursor = first.pagination.nextCursor as string;
    const reply = await client.GET("/prompts/{promptId}/evaluations", {
      params: { path, query: { limit: 1, status: "queued", cursor } },
    });
    expectError(reply, 400, "INVALID_CURSOR");
  });

  itAnswersTheErrorMatrix({ access: "read", send, unknown: "prompt" });
});

describe("getEvaluation", () => {
  const send: Send = (client, extra, id = queued.runId, promptId = prompt.id) =>
    client.GET("/prompts/{promptId}/evaluations/{evaluationId}", {
      params: { path: { promptId, evaluationId: id } },
      ...extra,
    });

  it("200: the run as accepted", async () => {
    const read = await send(use().client, {});
    expectStatus(read, 200);
    expect(read.data).toMatchObject({ runId: queued.runId, evaluatorId: evaluator.id, progress: queued.progress });
  });

  itAnswersTheErrorMatrix({ access: "read", send, unknown: "evalrun", elsewhere: anotherPrompt });
});

describe("cancelEvaluation", () => {
  /** A queued run this block may cancel (the last of its cases does). */
  let victim: Run;
  beforeAll(async () => {
    victim = await start(prompt.id);
  });
  const send: Send = (client, extra, id = victim.runId, promptId = prompt.id) =>
    client.POST("/prompts/{promptId}/evaluations/{evaluationId}/cancel", {
      params: { path: { promptId, evaluationId: id } },
      ...extra,
    });
  const cancel = (path: { promptId: string; evaluationId: string }) =>
    use().client.POST("/prompts/{promptId}/evaluations/{evaluationId}/cancel", { params: { path } });

  it("200: a queued run is cancelled at once; 409 CONFLICT when it is cancelled again", async () => {
    const run = await start(prompt.id);
    const cancelled = await cancel(runPath(run));
    expectStatus(cancelled, 200);
    expect(cancelled.data).toMatchObject({ runId: run.runId, status: "cancelled", timeline: { startedAt: null } });
    expect(cancelled.data?.timeline.finishedAt).toEqual(expect.any(Number));
    expectError(await cancel(runPath(run)), 409, "CONFLICT");
  });

  const unchanged = readRun(() => victim);
  itAnswersTheErrorMatrix({ access: "write", send, unknown: "evalrun", elsewhere: anotherPrompt, unchanged });
});

describe("listEvaluationResults", () => {
  const send: Send = (client, extra, id = queued.runId, promptId = prompt.id) =>
    client.GET("/prompts/{promptId}/evaluations/{evaluationId}/results", {
      params: { path: { promptId, evaluationId: id } },
      ...extra,
    });

  it("200: a run nobody has executed has no results yet, in every sort and with the row expanded", async () => {
    const { client } = use();
    for (const sort of ["createdAt:asc", "createdAt:desc", "score:asc", "score:desc"] as const) {
      const reply = await client.GET("/prompts/{promptId}/evaluations/{evaluationId}/results", {
        params: { path: runPath(), query: { sort, grade: "fail", expand: "row", limit: 10 } },
      });
      expectStatus(reply, 200);
      expect(reply.data).toEqual({
        results: [],
        pagination: { limit: 10, returned: 0, hasMore: false, nextCursor: null },
      });
    }
  });

  it("400 VALIDATION_ERROR for an unknown grade, sort or expansion and a page size of 0 or over 200", async () => {
    const { client } = use();
    for (const query of [
      { grade: "maybe" },
      { sort: "latency:asc" },
      { expand: "dataset" },
      { limit: 0 },
      { limit: 201 },
    ]) {
      const reply = await client.GET("/prompts/{promptId}/evaluations/{evaluationId}/results", {
        params: { path: runPath(), query } as never,
      });
      expectError(reply, 400, "VALIDATION_ERROR");
    }
  });

  itAnswersTheErrorMatrix({ access: "read", send, unknown: "evalrun", elsewhere: anotherPrompt });
});

itProvokedEveryDocumentedStatus(use, [
  "createEvaluation",
  "listEvaluations",
  "getEvaluation",
  "cancelEvaluation",
  "listEvaluationResults",
]);
