import type { schemas } from "@pharos/contract";
import type { Selectable } from "kysely";
import { notFound } from "../../errors.ts";
import type { Database } from "../../store/schema.ts";
import type { ServiceContext } from "../context.ts";
import { fromJson, toJson } from "../json.ts";
import { requirePrompt } from "../prompts/prompt.ts";

export type Evaluator = schemas.Evaluator;
export type EvaluatorConfig = schemas.EvaluatorConfig;

type EvaluatorRow = Selectable<Database["evaluators"]>;

export function toEvaluator(row: EvaluatorRow): Evaluator {
  const { status, createdAt, updatedAt, ...summary } = toEvaluatorSummary(row);
  return {
    ...summary,
    config: fromJson<EvaluatorConfig>(row.config),
    online: { sampleRate: row.onlineSampleRate, filters: fromJson<schemas.LogFilter[]>(row.onlineFilters) },
    status,
    createdAt,
    updatedAt,
  };
}

/** The stored columns of online settings, defaults filled in. */
export function onlineColumns(online: schemas.EvaluatorOnlineSettings | undefined) {
  return { onlineSampleRate: online?.sampleRate ?? 1, onlineFilters: toJson(online?.filters ?? []) };
}

export function toEvaluatorSummary(row: EvaluatorRow): schemas.EvaluatorSummary {
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
