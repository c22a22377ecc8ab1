import type { schemas } from "@pharos/contract";
import { invalid } from "../../errors.ts";
import { inTransaction, type ServiceContext } from "../context.ts";
import { toJson } from "../json.ts";
import { requirePrompt } from "../prompts/prompt.ts";
import { type Evaluator, toEvaluator } from "./evaluator.ts";
import { normalizeEvaluatorConfig } from "./evaluator-config.ts";
import { requireDatasetOfProject, requireJudgeProvider } from "./lookups.ts";

export function createEvaluator(
  ctx: ServiceContext,
  promptId: string,
  input: schemas.CreateEvaluatorRequest,
): Promise<Evaluator> {
  return inTransaction(ctx, (tx) => insertEvaluator(tx, promptId, input));
}

async function insertEvaluator(ctx: ServiceContext, promptId: string, input: schemas.CreateEvaluatorRequest) {
  const prompt = await requirePrompt(ctx, promptId);
  if (input.projectId !== prompt.projectId) throw invalid("projectId", "must be the prompt's project");
  await requireDatasetOfProject(ctx, input.datasetId, prompt.projectId);
  const config = normalizeEvaluatorConfig(input.config);
  await requireJudgeProvider(ctx, config);
  const now = ctx.now();
  const row = {
    id: ctx.newId("evaluator"),
    workspaceId: ctx.principal.workspaceId,
    projectId: prompt.projectId,
    promptId: prompt.id,
    datasetId: input.datasetId,
    title: input.title,
    config: toJson(config),
    status: "active" as const,
    createdAt: now,
    updatedAt: now,
  };
  await ctx.db.insertInto("evaluators").values(row).execute();
  return toEvaluator(row);
}
