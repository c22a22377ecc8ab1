import { sql } from "kysely";
import { conflict, invalid, notFound } from "../../errors.ts";
import { inTransaction, type ServiceContext } from "../context.ts";
import { loadColumns } from "../datasets/column.ts";
import { requireDatasetOfProject } from "../datasets/dataset.ts";
import { type PromptSnapshot, requireDeploymentOfPrompt } from "../deployments/deployment.ts";
import { fromJson, toJson } from "../json.ts";
import type { BodyOf, PathOf, Unread } from "../operation-input.ts";
import { requirePrompt, type StoredDraft } from "../prompts/prompt.ts";
import { type EvaluationRun, type RunPromptVersion, type RunRow, toEvaluationRun } from "./run.ts";

/**
 * Accepts a run (202 `queued`): everything it evaluates is copied in one transaction, then this process's
 * worker is woken (others find the run when they poll).
 */
export async function createEvaluation(
  ctx: ServiceContext,
  { promptId }: PathOf<"createEvaluation">,
  body: BodyOf<"createEvaluation">,
): Promise<EvaluationRun> {
  const run = await inTransaction(ctx, (tx) => insertRun(tx, promptId, body));
  ctx.wakeWorkers();
  return run;
}

async function insertRun(ctx: ServiceContext, promptId: string, body: BodyOf<"createEvaluation">) {
  const { evaluatorId, datasetId, deploymentId, ...unread } = body;
  unread satisfies Unread;
  const prompt = await requirePrompt(ctx, promptId);
  const evaluator = await chooseEvaluator(ctx, prompt.id, evaluatorId);
  if (evaluator.status === "archived") {
    throw conflict(`Evaluator ${evaluator.id} is archived; make it active again or choose another evaluator.`);
  }
  // Locked like every write to the dataset, so the columns and rows copied below are one consistent state.
  const dataset = await requireDatasetOfProject(ctx, datasetId ?? evaluator.datasetId, prompt.projectId);
  await refusePendingCells(ctx, dataset.id);
  const version =
    deploymentId === undefined ? draftVersion(prompt.draft) : await deploymentVersion(ctx, prompt.id, deploymentId);
  const columns = await loadColumns(ctx, dataset.id);
  const now = ctx.now();
  const row: RunRow = {
    id: ctx.newId("evaluationRun"),
    workspaceId: prompt.workspaceId,
    projectId: prompt.projectId,
    promptId: prompt.id,
    evaluatorId: evaluator.id,
    datasetId: dataset.id,
    deploymentId: deploymentId ?? null,
    status: "queued",
    promptVersion: toJson(version),
    evaluatorConfig: evaluator.config,
    columns: toJson(columns.map((column) => ({ id: column.id, name: column.name }))),
    totalRows: 0,
    completedRows: 0,
    failedRows: 0,
    passRuns: 0,
    failRuns: 0,
    unknownRuns: 0,
    totalCost: 0,
    totalLatency: 0,
    totalTokenCount: 0,
    error: null,
    createdAt: now,
    startedAt: null,
    finishedAt: null,
    updatedAt: now,
  };
  await ctx.db.insertInto("evaluationRuns").values(row).execute();
  const totalRows = await copyRows(ctx, row.id, dataset.id);
  if (totalRows > 0) await ctx.db.updateTable("evaluationRuns").set({ totalRows }).where("id", "=", row.id).execute();
  return toEvaluationRun({ ...row, totalRows });
}

/**
 * A run copies the rows as they are: with computed cells still pending it would evaluate values about to
 * change, so it is refused until they settle (ADR 0020). The dataset is locked, so no cell is queued meanwhile.
 */
async function refusePendingCells(ctx: ServiceContext, datasetId: string): Promise<void> {
  const pending = await ctx.db
    .selectFrom("datasetComputedCells")
    .select((eb) => eb.fn.countAll<number | string>().as("count"))
    .where("datasetId", "=", datasetId)
    .where("status", "=", "pending")
    .executeTakeFirstOrThrow();
  const count = Number(pending.count);
  if (count > 0) {
    throw conflict(
      `${count} computed cell${count > 1 ? "s" : ""} of dataset ${datasetId} ${count > 1 ? "are" : "is"} pending; start the run when the dataset's rows show none (GET /datasets/${datasetId}/rows).`,
    );
  }
}

/**
 * The evaluator named, which must be the prompt's (404), or else the prompt's only active one (400 when it
 * has none or several). Locked until the transaction ends, so a concurrent deleteEvaluator either sees this
 * run or deletes the evaluator first (and this request no longer finds it).
 */
async function chooseEvaluator(ctx: ServiceContext, promptId: string, evaluatorId: string | undefined) {
  let select = ctx.db.selectFrom("evaluators").selectAll().where("promptId", "=", promptId);
  select =
    evaluatorId === undefined ? select.where("status", "=", "active").limit(2) : select.where("id", "=", evaluatorId);
  const found = await ctx.store.sql.locks.forUpdate(select).execute();
  if (evaluatorId !== undefined) {
    if (!found[0]) throw notFound("Evaluator");
    return found[0];
  }
  if (!found[0]) {
    throw invalid("evaluatorId", "the prompt has no active evaluator: create one, or name an evaluator");
  }
  if (found.length > 1) {
    throw invalid("evaluatorId", "the prompt has several active evaluators: name the one to run");
  }
  return found[0];
}

/** A version the worker can run names a provider (kind or record) and a model. */
const isRunnable = ({ config }: RunPromptVersion) =>
  (config.provider !== null || config.providerId !== null) && config.model !== null;

export function draftVersion(draft: string): RunPromptVersion {
  const { config, messages, tools } = fromJson<StoredDraft>(draft);
  const version = { config, messages, tools };
  if (!isRunnable(version)) {
    throw invalid("", "the prompt version has no provider and model: set them in the draft config");
  }
  return version;
}

/** A deployment's snapshot, its config back in the draft's form (absent keys are null). */
export async function deploymentVersion(ctx: ServiceContext, promptId: string, deploymentId: string) {
  const deployment = await requireDeploymentOfPrompt(ctx, promptId, deploymentId);
  const snapshot = fromJson<PromptSnapshot>(deployment.snapshot);
  const version: RunPromptVersion = {
    config: {
      provider: snapshot.config.providerName ?? null,
      providerId: snapshot.config.providerId ?? null,
      model: snapshot.config.model ?? null,
      settings: snapshot.config.settings ?? {},
    },
    messages: snapshot.messages,
    tools: snapshot.tools,
  };
  if (!isRunnable(version)) {
    throw invalid(
      "deploymentId",
      "the deployment's prompt version has no provider and model: set them in the draft config and deploy it again",
    );
  }
  return version;
}

/**
 * One pending item per dataset row, in the rows' order, with the values as stored: a single INSERT … SELECT,
 * so a large dataset never passes through the server. Returns how many rows were copied.
 */
async function copyRows(ctx: ServiceContext, runId: string, datasetId: string): Promise<number> {
  const result = await ctx.db
    .insertInto("evaluationRunItems")
    .columns(["runId", "rowId", "position", "values", "state"])
    .expression(
      ctx.db
        .selectFrom("datasetRows")
        .select((eb) => [
          eb.val(runId).as("runId"),
          "id as rowId",
          sql<number>`row_number() over (order by ${sql.ref("createdAt")}, ${sql.ref("id")})`.as("position"),
          "values",
          eb.val("pending").as("state"),
        ])
        .where("datasetId", "=", datasetId),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0);
}
