import { expect, it } from "vitest";
import { countOf, insertResult, ok, setRun, setup, startRun } from "../../testing/evaluation-fixtures.ts";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore, type Harness } from "../../testing/harness.ts";
import { createPrompt, richDraft } from "../../testing/prompt-fixtures.ts";

/** A dataset of the harness's workspace, written directly: fixtures for the rules that involve datasets. */
async function insertDataset(h: Harness) {
  const now = h.now();
  const id = `dataset_${String(now).padStart(26, "0")}`;
  await h.store.db
    .insertInto("datasets")
    .values({
      id,
      workspaceId: h.workspaceId,
      projectId: h.projectId,
      title: "d",
      icon: JSON.stringify({ type: "emoji", value: "🧪" }),
      description: "",
      rowCount: 0,
      createdAt: now,
      updatedAt: now,
    })
    .execute();
  return id;
}

async function insertPromptColumn(h: Harness, datasetId: string, promptId: string, name: string) {
  const now = h.now();
  const id = `column_${String(now).padStart(26, "0")}`;
  await h.store.db
    .insertInto("datasetColumns")
    .values({
      id,
      datasetId,
      name,
      type: "prompt",
      settings: JSON.stringify({ promptId }),
      position: 0,
      createdAt: now,
      updatedAt: now,
    })
    .execute();
  return id;
}

describeEachStore("deletePrompt", (use) => {
  it("deletes the prompt (204, no body) with its draft, playground, deployments and evaluators", async () => {
    const h = use();
    const prompt = await createPrompt(h, { draft: richDraft });
    const env = await h.request("POST", `/projects/${h.projectId}/deployment-environments`, { body: { name: "prod" } });
    const deployment = await h.request("POST", `/prompts/${prompt.id}/deployments`, {
      body: { deploymentEnvironmentId: env.body.id },
    });
    expect(deployment.status).toBe(201);
    const datasetId = await insertDataset(h);
    const now = h.now();
    await h.store.db
      .insertInto("evaluators")
      .values({
        id: `evaluator_${String(now).padStart(26, "0")}`,
        workspaceId: h.workspaceId,
        projectId: h.projectId,
        promptId: prompt.id,
        datasetId,
        title: "judge",
        config: JSON.stringify({ type: "llm-as-a-judge", value: "ok?" }),
        status: "active",
        createdAt: now,
        updatedAt: now,
      })
      .execute();
    const keeper = await createPrompt(h);

    const reply = await h.request("DELETE", `/prompts/${prompt.id}`);
    expect(reply.status).toBe(204);
    expect(reply.body).toBe("");
    expect(reply.headers.get("X-Request-Id")).toMatch(/^[0-9a-f-]{36}$/);

    await expectError(await h.request("GET", `/prompts/${prompt.id}`), 404, "RESOURCE_NOT_FOUND");
    await expectError(await h.request("GET", `/prompts/${prompt.id}/draft`), 404, "RESOURCE_NOT_FOUND");
    await expectError(
      await h.request("GET", `/deployments?promptId=${prompt.id}&deploymentId=${deployment.body.id}`),
      404,
      "RESOURCE_NOT_FOUND",
    );
    const left = async (table: "deployments" | "evaluators") =>
      (await h.store.db.selectFrom(table).select("id").where("promptId", "=", prompt.id).execute()).length;
    expect(await left("deployments")).toBe(0);
    expect(await left("evaluators")).toBe(0);
    await expectError(await h.request("DELETE", `/prompts/${prompt.id}`), 404, "RESOURCE_NOT_FOUND");
    expect((await h.request("GET", `/prompts/${keeper.id}`)).status).toBe(200);
  });

  it("answers 409 CONFLICT while a dataset prompt column refers to the prompt, then deletes once it is gone", async () => {
    const h = use();
    const prompt = await createPrompt(h);
    const other = await createPrompt(h);
    const datasetId = await insertDataset(h);
    await insertPromptColumn(h, datasetId, other.id, "other prompt");
    const columnId = await insertPromptColumn(h, datasetId, prompt.id, "answer");

    await expectError(await h.request("DELETE", `/prompts/${prompt.id}`), 409, "CONFLICT");
    expect((await h.request("GET", `/prompts/${prompt.id}`)).status).toBe(200);

    await h.store.db.deleteFrom("datasetColumns").where("id", "=", columnId).execute();
    expect((await h.request("DELETE", `/prompts/${prompt.id}`)).status).toBe(204);
  });

  it("removes its evaluation runs with their items and results, whatever their state", async () => {
    const h = use();
    const s = await setup(h);
    const queued = await startRun(h, s.promptId);
    const finished = await startRun(h, s.promptId);
    await setRun(h, finished.runId, { status: "completed", finishedAt: h.now() });
    await insertResult(h, finished.runId, s.rowIds[0] as string, { createdAt: h.now() });
    const survivor = await setup(h);
    const kept = await startRun(h, survivor.promptId);

    expect((await h.request("DELETE", `/prompts/${s.promptId}`)).status).toBe(204);
    for (const runId of [queued.runId, finished.runId]) {
      expect(await countOf(h, "evaluationRuns", runId)).toBe(0);
      expect(await countOf(h, "evaluationRunItems", runId)).toBe(0);
      expect(await countOf(h, "evaluationResults", runId)).toBe(0);
    }
    await expectError(
      await h.request("GET", `/prompts/${s.promptId}/evaluations/${queued.runId}`),
      404,
      "RESOURCE_NOT_FOUND",
    );
    expect(await countOf(h, "evaluationRunItems", kept.runId)).toBe(3);
    expect((await ok(h, "GET", `/prompts/${survivor.promptId}/evaluations/${kept.runId}`)).status).toBe("queued");
  });
});
