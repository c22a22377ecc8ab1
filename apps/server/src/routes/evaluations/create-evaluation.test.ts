import { expect, it } from "vitest";
import type { RunPromptVersion } from "../../services/evaluations/run.ts";
import { fromJson } from "../../services/json.ts";
import {
  MATCHER,
  newDataset,
  newEvaluator,
  ok,
  RUNNABLE_DRAFT,
  setup,
  startRun,
} from "../../testing/evaluation-fixtures.ts";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore, type Harness } from "../../testing/harness.ts";

const unknown = (prefix: string) => `${prefix}_${"0".repeat(26)}`;

const create = (h: Harness, promptId: string, body: unknown, key?: string) =>
  h.request("POST", `/prompts/${promptId}/evaluations`, { body, key });

async function storedRun(h: Harness, runId: string) {
  const run = await h.store.db
    .selectFrom("evaluationRuns")
    .selectAll()
    .where("id", "=", runId)
    .executeTakeFirstOrThrow();
  return {
    promptVersion: fromJson<RunPromptVersion>(run.promptVersion),
    evaluatorConfig: fromJson<unknown>(run.evaluatorConfig),
    columns: fromJson<unknown>(run.columns),
  };
}

function storedItems(h: Harness, runId: string) {
  return h.store.db
    .selectFrom("evaluationRunItems")
    .selectAll()
    .where("runId", "=", runId)
    .orderBy("position")
    .execute();
}

async function deployDraft(h: Harness, promptId: string) {
  const environment = await ok(h, "POST", `/projects/${h.projectId}/deployment-environments`, {
    name: `env-${Math.random().toString(36).slice(2, 8)}`,
  });
  return (await ok(h, "POST", `/prompts/${promptId}/deployments`, { deploymentEnvironmentId: environment.id })).id;
}

describeEachStore("createEvaluation", (use) => {
  it("202: queues a run of the draft with the only active evaluator and its dataset (body {})", async () => {
    const h = use();
    const s = await setup(h);
    const run = await startRun(h, s.promptId);
    expect(run).toEqual({
      runId: expect.stringMatching(/^evalrun_/),
      promptId: s.promptId,
      evaluatorId: s.evaluatorId,
      datasetId: s.datasetId,
      deploymentId: null,
      status: "queued",
      progress: { totalRows: 3, completedRows: 0, failedRows: 0, percent: 0 },
      metrics: { passRuns: 0, failRuns: 0, unknownRuns: 0, totalCost: 0, totalLatency: 0, totalTokenCount: 0 },
      timeline: { submittedAt: expect.any(Number), startedAt: null, finishedAt: null },
      error: null,
    });
    expect((await h.request("GET", `/prompts/${s.promptId}/evaluations/${run.runId}`)).body).toEqual(run);
  });

  it("copies the prompt version, the evaluator config, the columns and the rows: later edits change no run", async () => {
    const h = use();
    const s = await setup(h);
    const evaluator = await ok(h, "GET", `/prompts/${s.promptId}/evaluators/${s.evaluatorId}`);
    const run = await startRun(h, s.promptId, { evaluatorId: s.evaluatorId });
    const copied = await storedRun(h, run.runId);
    expect(copied).toEqual({
      promptVersion: {
        config: { provider: "openai", providerId: null, model: "gpt-4o-mini", settings: { temperature: 0 } },
        messages: RUNNABLE_DRAFT.messages,
        tools: [],
      },
      // The normal form, defaults filled in.
      evaluatorConfig: { ...MATCHER, group: "code", caseSensitive: true },
      columns: [
        { id: s.columns.question, name: "question" },
        { id: s.columns.expected, name: "expected" },
      ],
    });
    expect(copied.evaluatorConfig).toEqual(evaluator.config);
    const items = await storedItems(h, run.runId);
    expect(items.map((item) => item.rowId)).toEqual(s.rowIds);
    expect(items.map((item) => item.position)).toEqual([1, 2, 3]);
    expect(items.map((item) => fromJson(item.values))).toEqual(
      [0, 1, 2].map((i) => ({ [s.columns.question]: `Q${i}`, [s.columns.expected]: `A${i}` })),
    );
    expect(
      items.every((item) => item.state === "pending" && item.leaseOwner === null && item.leaseExpiresAt === null),
    ).toBe(true);

    await ok(h, "PATCH", `/prompts/${s.promptId}`, { config: { provider: "anthropic", model: "claude-x" } });
    await ok(h, "PATCH", `/prompts/${s.promptId}/evaluators/${s.evaluatorId}`, {
      config: { type: "cost", operator: "less-than", threshold: 1 },
    });
    await ok(h, "PATCH", `/datasets/${s.datasetId}/rows/${s.rowIds[0]}`, { values: { question: "changed" } });
    await ok(h, "DELETE", `/datasets/${s.datasetId}/rows/${s.rowIds[1]}`);
    await ok(h, "POST", `/datasets/${s.datasetId}/rows`, { rows: [{ values: { question: "new" } }] });
    await ok(h, "PATCH", `/datasets/${s.datasetId}/columns/${s.columns.expected}`, { name: "answer" });

    expect(await storedRun(h, run.runId)).toEqual(copied);
    expect(await storedItems(h, run.runId)).toEqual(items);
    expect((await ok(h, "GET", `/prompts/${s.promptId}/evaluations/${run.runId}`)).progress.totalRows).toBe(3);
  });

  it("202: an empty dataset makes a run of 0 rows, 100 percent done", async () => {
    const h = use();
    const s = await setup(h, { rows: 0 });
    const run = await startRun(h, s.promptId);
    expect(run.progress).toEqual({ totalRows: 0, completedRows: 0, failedRows: 0, percent: 100 });
    expect(await storedItems(h, run.runId)).toEqual([]);
  });

  it("202: uses the evaluator named, and a dataset of the prompt's project named instead of the evaluator's", async () => {
    const h = use();
    const s = await setup(h);
    const other = await newDataset(h, 2);
    const second = await newEvaluator(h, s.promptId, s.datasetId);
    const run = await startRun(h, s.promptId, { evaluatorId: second, datasetId: other.datasetId });
    expect(run).toMatchObject({ evaluatorId: second, datasetId: other.datasetId, progress: { totalRows: 2 } });
    expect((await storedItems(h, run.runId)).map((item) => item.rowId)).toEqual(other.rowIds);
  });

  it("400 when evaluatorId is left out and the prompt has several active evaluators or none", async () => {
    const h = use();
    const s = await setup(h);
    const second = await newEvaluator(h, s.promptId, s.datasetId);
    const several = await create(h, s.promptId, {});
    await expectError(several, 400, "VALIDATION_ERROR");
    expect(several.body.error.details[0].field).toBe("evaluatorId");
    // Archived evaluators do not count: with one of the two archived, the other is the default.
    await ok(h, "PATCH", `/prompts/${s.promptId}/evaluators/${second}`, { status: "archived" });
    expect((await startRun(h, s.promptId)).evaluatorId).toBe(s.evaluatorId);
    await ok(h, "PATCH", `/prompts/${s.promptId}/evaluators/${s.evaluatorId}`, { status: "archived" });
    const none = await create(h, s.promptId, {});
    await expectError(none, 400, "VALIDATION_ERROR");
    expect(none.body.error.details[0].field).toBe("evaluatorId");
    const bare = await ok(h, "POST", "/prompts", { projectId: h.projectId, draft: RUNNABLE_DRAFT });
    await expectError(await create(h, bare.id, {}), 400, "VALIDATION_ERROR");
  });

  it("409 CONFLICT for an archived evaluator named", async () => {
    const h = use();
    const s = await setup(h);
    await ok(h, "PATCH", `/prompts/${s.promptId}/evaluators/${s.evaluatorId}`, { status: "archived" });
    await expectError(await create(h, s.promptId, { evaluatorId: s.evaluatorId }), 409, "CONFLICT");
  });

  it("404 for an unknown evaluator and for an evaluator of another prompt", async () => {
    const h = use();
    const s = await setup(h);
    const other = await setup(h);
    for (const evaluatorId of [unknown("evaluator"), other.evaluatorId]) {
      await expectError(await create(h, s.promptId, { evaluatorId }), 404, "RESOURCE_NOT_FOUND");
    }
  });

  it("404 for an unknown dataset or one of another workspace; 400 for a dataset of another project", async () => {
    const h = use();
    const s = await setup(h);
    const elsewhere = await ok(h, "POST", "/projects", { title: "Elsewhere" });
    const foreignProject = await newDataset(h, 1, elsewhere.id);
    const otherWorkspace = await h.otherWorkspace();
    const foreignWorkspace = await h.request("POST", "/datasets", {
      body: { projectId: otherWorkspace.projectId, title: "Theirs" },
      key: otherWorkspace.key,
    });
    for (const datasetId of [unknown("dataset"), foreignWorkspace.body.id]) {
      await expectError(await create(h, s.promptId, { datasetId }), 404, "RESOURCE_NOT_FOUND");
    }
    const wrongProject = await create(h, s.promptId, { datasetId: foreignProject.datasetId });
    await expectError(wrongProject, 400, "VALIDATION_ERROR");
    expect(wrongProject.body.error.details[0].field).toBe("datasetId");
  });

  it("202 with a deployment of the prompt: its snapshot is evaluated, not the draft", async () => {
    const h = use();
    const s = await setup(h);
    const deploymentId = await deployDraft(h, s.promptId);
    await ok(h, "PATCH", `/prompts/${s.promptId}`, {
      config: { provider: "anthropic", model: "claude-later" },
      messages: [{ role: "user", content: [{ modality: "text", value: "Later {{question}}" }] }],
    });
    const run = await startRun(h, s.promptId, { deploymentId });
    expect(run.deploymentId).toBe(deploymentId);
    expect((await storedRun(h, run.runId)).promptVersion).toEqual({
      config: { provider: "openai", providerId: null, model: "gpt-4o-mini", settings: { temperature: 0 } },
      messages: RUNNABLE_DRAFT.messages,
      tools: [],
    });
    const ofDraft = await startRun(h, s.promptId);
    expect((await storedRun(h, ofDraft.runId)).promptVersion.config).toMatchObject({
      provider: "anthropic",
      model: "claude-later",
    });
  });

  it("keeps a pinned provider record of the draft or a deployment (providerId, provider from the record)", async () => {
    const h = use();
    const record = await ok(h, "POST", "/providers", {
      provider: "openai-compatible",
      displayName: "Local",
      baseUrl: "http://127.0.0.1:11434/v1",
    });
    const draft = { ...RUNNABLE_DRAFT, config: { providerId: record.id, model: "llama" } };
    const s = await setup(h, { draft });
    const deploymentId = await deployDraft(h, s.promptId);
    const expected = { provider: "openai-compatible", providerId: record.id, model: "llama", settings: {} };
    for (const body of [{}, { deploymentId }]) {
      const run = await startRun(h, s.promptId, body);
      expect((await storedRun(h, run.runId)).promptVersion.config).toEqual(expected);
    }
  });

  it("404 for an unknown deployment and for a deployment of another prompt", async () => {
    const h = use();
    const s = await setup(h);
    const other = await setup(h);
    const foreignDeployment = await deployDraft(h, other.promptId);
    for (const deploymentId of [unknown("deployment"), foreignDeployment]) {
      await expectError(await create(h, s.promptId, { deploymentId }), 404, "RESOURCE_NOT_FOUND");
    }
  });

  it("400 for a prompt version without provider or model (draft or deployment)", async () => {
    const h = use();
    const messages = RUNNABLE_DRAFT.messages;
    for (const config of [{}, { provider: "openai" }, { model: "gpt-4o-mini" }]) {
      const s = await setup(h, { draft: { config, messages } });
      const reply = await create(h, s.promptId, {});
      await expectError(reply, 400, "VALIDATION_ERROR");
      expect(reply.body.error.message).toContain("no provider and model");
    }
    const s = await setup(h, { draft: { config: { provider: "openai" }, messages } });
    const deploymentId = await deployDraft(h, s.promptId);
    await ok(h, "PATCH", `/prompts/${s.promptId}`, { config: { provider: "openai", model: "gpt-4o-mini" } });
    const ofDeployment = await create(h, s.promptId, { deploymentId });
    await expectError(ofDeployment, 400, "VALIDATION_ERROR");
    expect(ofDeployment.body.error.details[0].field).toBe("deploymentId");
    await startRun(h, s.promptId);
  });
});
