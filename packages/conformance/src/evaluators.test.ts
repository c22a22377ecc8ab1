/** Evaluators through the client, every response validated against the spec. */
import { type PharosClient, paginate, unwrap } from "@pharos/client";
import { beforeAll, describe, expect, it } from "vitest";
import { errorMatrixOf, itProvokedEveryDocumentedStatus, type Send } from "./cases.ts";
import {
  fullDraft,
  judgeConfig,
  newDataset,
  newEvaluator,
  newProject,
  newPrompt,
  runTag,
  type Schemas,
  unknownId,
} from "./fixtures.ts";
import { expectError, expectStatus } from "./replies.ts";
import { useTarget } from "./target.ts";

const use = useTarget();
const itAnswersTheErrorMatrix = errorMatrixOf(use, () => projectId);
const run = runTag();

let projectId: string;
let prompt: Schemas["Prompt"];
let dataset: Schemas["Dataset"];
let evaluator: Schemas["Evaluator"];
/** A prompt and a dataset of another project of the workspace. */
let foreign: { prompt: Schemas["Prompt"]; dataset: Schemas["Dataset"] };

beforeAll(async () => {
  const { client } = use();
  projectId = (await newProject(client, `Evaluators ${run}`)).id;
  prompt = await newPrompt(client, projectId, { title: `Judged ${run}` });
  dataset = await newDataset(client, projectId, { title: `Cases ${run}` });
  evaluator = await newEvaluator(client, prompt, dataset.id);
  const elsewhere = (await newProject(client, `Elsewhere ${run}`)).id;
  foreign = {
    prompt: await newPrompt(client, elsewhere, { title: "Foreign" }),
    dataset: await newDataset(client, elsewhere, { title: "Foreign" }),
  };
});

const evaluatorPath = () => ({ promptId: prompt.id, evaluatorId: evaluator.id });
/** Another prompt of the project: an evaluator is not found under it. */
const anotherPrompt = { parent: "prompt", create: async () => (await newPrompt(use().client, projectId)).id };
/** Reads an evaluator of `prompt`: what a refused change must leave as it was. */
const readEvaluator = (id: () => string) => async (client: PharosClient) =>
  unwrap(
    await client.GET("/prompts/{promptId}/evaluators/{evaluatorId}", {
      params: { path: { promptId: prompt.id, evaluatorId: id() } },
    }),
  );

describe("listEvaluators", () => {
  const send: Send = (client, extra, id = prompt.id) =>
    client.GET("/prompts/{promptId}/evaluators", { params: { path: { promptId: id } }, ...extra });

  it("200: lists the prompt's evaluators without config, filters by status and pages", async () => {
    const { client } = use();
    const listed = await newPrompt(client, projectId, { title: "Listed" });
    const made = [];
    for (const title of ["one", "two", "three"]) made.push(await newEvaluator(client, listed, dataset.id, title));
    const archived = made[1] as Schemas["Evaluator"];
    unwrap(
      await client.PATCH("/prompts/{promptId}/evaluators/{evaluatorId}", {
        params: { path: { promptId: listed.id, evaluatorId: archived.id } },
        body: { status: "archived" },
      }),
    );
    const page = await client.GET("/prompts/{promptId}/evaluators", {
      params: { path: { promptId: listed.id }, query: { limit: 2 } },
    });
    expectStatus(page, 200);
    expect(page.data?.evaluators[0]).not.toHaveProperty("config");
    const all = [];
    for await (const e of paginate(client, "GET", "/prompts/{promptId}/evaluators", {
      params: { path: { promptId: listed.id }, query: { limit: 2, sort: "createdAt:asc" } },
    })) {
      all.push(e.id);
    }
    expect(all).toEqual(made.map((e) => e.id));
    const onlyArchived = unwrap(
      await client.GET("/prompts/{promptId}/evaluators", {
        params: { path: { promptId: listed.id }, query: { status: "archived" } },
      }),
    );
    expect(onlyArchived.evaluators.map((e) => e.id)).toEqual([archived.id]);
  });

  it("400 VALIDATION_ERROR for an unknown status and a page size over 200", async () => {
    const { client } = use();
    const path = { promptId: prompt.id };
    for (const query of [{ status: "deleted" }, { limit: 201 }]) {
      const reply = await client.GET("/prompts/{promptId}/evaluators", { params: { path, query } as never });
      expectError(reply, 400, "VALIDATION_ERROR");
    }
  });

  itAnswersTheErrorMatrix({ access: "read", send, unknown: "prompt" });
});

describe("createEvaluator", () => {
  const body = () => ({ projectId, title: `Created ${run}`, datasetId: dataset.id, config: judgeConfig });
  const send: Send = (client, extra) =>
    client.POST("/prompts/{promptId}/evaluators", {
      params: { path: { promptId: prompt.id } },
      body: body(),
      ...extra,
    });
  const create = (promptId: string, fields: Record<string, unknown>) =>
    use().client.POST("/prompts/{promptId}/evaluators", {
      params: { path: { promptId } },
      body: { ...body(), ...fields } as never,
    });

  it("201: creates an active evaluator with its defaults filled in", async () => {
    const created = await send(use().client, {});
    expectStatus(created, 201);
    expect(created.data).toMatchObject({
      promptId: prompt.id,
      datasetId: dataset.id,
      status: "active",
      config: { ...judgeConfig, group: "ai-powered", judgeModel: null },
    });
  });

  it("201: accepts the other config types", async () => {
    const configs = [
      { type: "text-matcher", operator: "contains-any", value: ["thanks", "please"] },
      { type: "latency", operator: "less-than", threshold: 2000, unit: "ms" },
      { type: "cost", operator: "less-than", threshold: 0.01 },
      { type: "response-length", operator: "greater-than", threshold: 3, unit: "words" },
    ];
    for (const config of configs) expectStatus(await create(prompt.id, { config }), 201);
  });

  it("400 VALIDATION_ERROR for a bad title or config, a short id, and a project or dataset that is not the prompt's", async () => {
    const cases = [
      { title: "" },
      { title: "t".repeat(201) },
      { config: { type: "magic", value: "x" } },
      { datasetId: "dataset_1" },
      { projectId: foreign.prompt.projectId },
      { datasetId: foreign.dataset.id },
    ];
    for (const fields of cases) expectError(await create(prompt.id, fields), 400, "VALIDATION_ERROR");
  });

  it("404 RESOURCE_NOT_FOUND for an unknown prompt and an unknown dataset", async () => {
    expectError(await create(unknownId("prompt"), {}), 404, "RESOURCE_NOT_FOUND");
    expectError(await create(prompt.id, { datasetId: unknownId("dataset") }), 404, "RESOURCE_NOT_FOUND");
  });

  it("404 RESOURCE_NOT_FOUND for an unknown judge providerId", async () => {
    const judgeModel = { providerId: unknownId("provider"), model: "gpt-4o-mini" };
    const reply = await create(prompt.id, { config: { ...judgeConfig, judgeModel } });
    expectError(reply, 404, "RESOURCE_NOT_FOUND");
  });

  itAnswersTheErrorMatrix({ access: "write", send, body: true });
});

describe("getEvaluator", () => {
  const send: Send = (client, extra, id = evaluator.id, promptId = prompt.id) =>
    client.GET("/prompts/{promptId}/evaluators/{evaluatorId}", {
      params: { path: { promptId, evaluatorId: id } },
      ...extra,
    });

  it("200: reads the evaluator with its config", async () => {
    const read = await send(use().client, {});
    expectStatus(read, 200);
    expect(read.data).toEqual(evaluator);
  });

  itAnswersTheErrorMatrix({ access: "read", send, unknown: "evaluator", elsewhere: anotherPrompt });
});

describe("updateEvaluator", () => {
  const send: Send = (client, extra) =>
    client.PATCH("/prompts/{promptId}/evaluators/{evaluatorId}", {
      params: { path: evaluatorPath() },
      body: { title: `Updated ${run}` },
      ...extra,
    });
  const update = (fields: Record<string, unknown>, path = evaluatorPath()) =>
    use().client.PATCH("/prompts/{promptId}/evaluators/{evaluatorId}", { params: { path }, body: fields as never });

  it("200: changes the fields given: title, config, dataset, and archives and restores", async () => {
    const { client } = use();
    const otherDataset = await newDataset(client, projectId, { title: "Other cases" });
    const renamed = await update({ title: "Renamed", datasetId: otherDataset.id });
    expectStatus(renamed, 200);
    expect(renamed.data).toMatchObject({ title: "Renamed", datasetId: otherDataset.id, config: evaluator.config });
    const archived = await update({ status: "archived" });
    expect(archived.data?.status).toBe("archived");
    const latency = { type: "latency", operator: "less-than", threshold: 500, unit: "ms" };
    const restored = await update({ status: "active", config: latency });
    expectStatus(restored, 200);
    expect(restored.data).toMatchObject({ status: "active", config: latency });
  });

  it("400 VALIDATION_ERROR for an empty update and for a bad status", async () => {
    for (const fields of [{}, { status: "deleted" }, { title: "t".repeat(201) }]) {
      expectError(await update(fields), 400, "VALIDATION_ERROR");
    }
  });

  it("400 VALIDATION_ERROR for a dataset of another project", async () => {
    expectError(await update({ datasetId: foreign.dataset.id }), 400, "VALIDATION_ERROR");
  });

  it("404 RESOURCE_NOT_FOUND for an unknown evaluator and an unknown dataset", async () => {
    const unknown = { promptId: prompt.id, evaluatorId: unknownId("evaluator") };
    expectError(await update({ title: "x" }, unknown), 404, "RESOURCE_NOT_FOUND");
    expectError(await update({ datasetId: unknownId("dataset") }), 404, "RESOURCE_NOT_FOUND");
  });

  itAnswersTheErrorMatrix({ access: "write", send, body: true, unchanged: readEvaluator(() => evaluator.id) });
});

describe("deleteEvaluator", () => {
  let victim: Schemas["Evaluator"];
  beforeAll(async () => {
    victim = await newEvaluator(use().client, prompt, dataset.id, "Victim");
  });
  const send: Send = (client, extra, id = victim.id) =>
    client.DELETE("/prompts/{promptId}/evaluators/{evaluatorId}", {
      params: { path: { promptId: prompt.id, evaluatorId: id } },
      ...extra,
    });
  const remove = (evaluatorId: string) =>
    use().client.DELETE("/prompts/{promptId}/evaluators/{evaluatorId}", {
      params: { path: { promptId: prompt.id, evaluatorId } },
    });

  it("204: deletes the evaluator; it is gone afterwards", async () => {
    const doomed = await newEvaluator(use().client, prompt, dataset.id, "Doomed");
    const deleted = await remove(doomed.id);
    expectStatus(deleted, 204);
    expectError(await remove(doomed.id), 404, "RESOURCE_NOT_FOUND");
  });

  it("409 CONFLICT while one of its runs is queued; 204 once the run is cancelled", async () => {
    const { client } = use();
    const runnable = await newPrompt(client, projectId, { title: "Runnable", draft: fullDraft });
    const busy = await newEvaluator(client, runnable, dataset.id, "Busy");
    const run = unwrap(
      await client.POST("/prompts/{promptId}/evaluations", {
        params: { path: { promptId: runnable.id } },
        body: { evaluatorId: busy.id },
      }),
    );
    const removeBusy = () =>
      client.DELETE("/prompts/{promptId}/evaluators/{evaluatorId}", {
        params: { path: { promptId: runnable.id, evaluatorId: busy.id } },
      });
    expectError(await removeBusy(), 409, "CONFLICT");
    unwrap(
      await client.POST("/prompts/{promptId}/evaluations/{evaluationId}/cancel", {
        params: { path: { promptId: runnable.id, evaluationId: run.runId } },
      }),
    );
    expectStatus(await removeBusy(), 204);
  });

  itAnswersTheErrorMatrix({ access: "write", send, unknown: "evaluator", unchanged: readEvaluator(() => victim.id) });
});

describe("getEvaluatorOnlineStats", () => {
  const send: Send = (client, extra, id = evaluator.id, promptId = prompt.id) =>
    client.GET("/prompts/{promptId}/evaluators/{evaluatorId}/online-stats", {
      // A fixed window: the default one moves with the clock between the replies the matrix compares.
      params: { path: { promptId, evaluatorId: id }, query: { from: 1732104000000, to: 1732190400000 } },
      ...extra,
    });
  const stats = (query: { from?: number; to?: number }) =>
    use().client.GET("/prompts/{promptId}/evaluators/{evaluatorId}/online-stats", {
      params: { path: evaluatorPath(), query },
    });

  it("200: counts over the window given, none for an evaluator that graded no live span", async () => {
    const read = await stats({ from: 1732104000000, to: 1732190400000 });
    expectStatus(read, 200);
    expect(read.data).toEqual({
      evaluatorId: evaluator.id,
      from: 1732104000000,
      to: 1732190400000,
      queued: 0,
      graded: 0,
      passed: 0,
      failed: 0,
      pending: 0,
      passRate: null,
    });
  });

  it("200: the 24 hours before now by default", async () => {
    const read = await stats({});
    expectStatus(read, 200);
    expect((read.data?.to ?? 0) - (read.data?.from ?? 0)).toBe(24 * 60 * 60 * 1000);
  });

  it("400 VALIDATION_ERROR for from after to, and for a time outside the Timestamp range", async () => {
    expectError(await stats({ from: 1732190400001, to: 1732190400000 }), 400, "VALIDATION_ERROR");
    expectError(await stats({ from: 1 }), 400, "VALIDATION_ERROR");
  });

  itAnswersTheErrorMatrix({ access: "read", send, unknown: "evaluator", elsewhere: anotherPrompt });
});

itProvokedEveryDocumentedStatus(use, [
  "listEvaluators",
  "createEvaluator",
  "getEvaluator",
  "updateEvaluator",
  "deleteEvaluator",
  "getEvaluatorOnlineStats",
]);
