import type { schemas } from "@pharos/contract";
import { invalid, notFound } from "../../errors.ts";
import type { ServiceContext } from "../context.ts";
import { requireDataset } from "../datasets/dataset.ts";
import { requirePrompt } from "../prompts/prompt.ts";
import { requireProvider } from "../providers/provider.ts";

/**
 * A dataset for an evaluator: unknown in the workspace is 404, one of another project 400. Locked until the
 * transaction ends, so a concurrent deleteDataset cannot remove it under the new reference.
 */
export async function requireDatasetOfProject(ctx: ServiceContext, datasetId: string, projectId: string) {
  const dataset = await requireDataset(ctx, datasetId, { forUpdate: true });
  if (dataset.projectId !== projectId) throw invalid("datasetId", "must be a dataset of the prompt's project");
  return dataset;
}

/** The evaluator, which must belong to the prompt. */
export async function requireEvaluator(ctx: ServiceContext, promptId: string, evaluatorId: string) {
  const prompt = await requirePrompt(ctx, promptId);
  const evaluator = await ctx.db
    .selectFrom("evaluators")
    .selectAll()
    .where("id", "=", evaluatorId)
    .where("promptId", "=", prompt.id)
    .executeTakeFirst();
  if (!evaluator) throw notFound("Evaluator");
  return evaluator;
}

/** A judge model's `providerId` must name a provider record of the workspace (404 otherwise). */
export async function requireJudgeProvider(ctx: ServiceContext, config: schemas.EvaluatorConfig): Promise<void> {
  const providerId = config.type === "llm-as-a-judge" ? config.judgeModel?.providerId : undefined;
  if (providerId !== undefined) await requireProvider(ctx, providerId);
}
