import { invalid } from "../../errors.ts";
import { inTransaction, type ServiceContext } from "../context.ts";
import { requireDatasetOfProject } from "../datasets/dataset.ts";
import { toJson } from "../json.ts";
import type { BodyOf, PathOf, Unread } from "../operation-input.ts";
import { requirePrompt } from "../prompts/prompt.ts";
import { type Evaluator, onlineColumns, toEvaluator } from "./evaluator.ts";
import { normalizeEvaluatorConfig, requireJudgeProvider } from "./evaluator-config.ts";

export function createEvaluator(
  ctx: ServiceContext,
  { promptId }: PathOf<"createEvaluator">,
  body: BodyOf<"createEvaluator">,
): Promise<Evaluator> {
  return inTransaction(ctx, (tx) => insertEvaluator(tx, promptId, body));
}

async function insertEvaluator(ctx: ServiceContext, promptId: string, body: BodyOf<"createEvaluator">) {
  const { projectId, datasetId, title, config: requested, online, ...unread } = body;
  unread satisfies Unread;
  const prompt = await requirePrompt(ctx, promptId);
  if (projectId !== prompt.projectId) throw invalid("projectId", "must be the prompt's project");
  await requireDatasetOfProject(ctx, datasetId, prompt.projectId);
  const config = normalizeEvaluatorConfig(requested);
  await requireJudgeProvider(ctx, config);
  const now = ctx.now();
  const row = {
    id: ctx.newId("evaluator"),
    workspaceId: ctx.principal.workspaceId,
    projectId: prompt.projectId,
    promptId: prompt.id,
    datasetId,
    title,
    config: toJson(config),
    ...onlineColumns(online),
    status: "active" as const,
    createdAt: now,
    updatedAt: now,
  };
  await ctx.db.insertInto("evaluators").values(row).execute();
  return toEvaluator(row);
}
