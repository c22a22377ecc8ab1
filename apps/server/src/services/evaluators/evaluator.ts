import type { schemas } from "@pharos/contract";
import { notFound } from "../../errors.ts";
import type { Database } from "../../store/schema.ts";
import type { ServiceContext } from "../context.ts";
import { fromJson } from "../json.ts";
import { requirePrompt } from "../prompts/prompt.ts";

export type Evaluator = schemas.Evaluator;
export type EvaluatorConfig = schemas.EvaluatorConfig;

export function toEvaluator(row: Database["evaluators"]): Evaluator {
  return { ...toEvaluatorSummary(row), config: fromJson<EvaluatorConfig>(row.config) };
}

export function toEvaluatorSummary(row: Database["evaluators"]): schemas.EvaluatorSummary {
  return {
    id: row.id,
    promptId: row.promptId,
    datasetId: row.datasetId,
    title: row.title,
    status: row.status,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
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
