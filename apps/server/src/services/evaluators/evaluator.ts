import type { schemas } from "@pharos/contract";
import type { Database } from "../../store/schema.ts";
import { fromJson } from "../json.ts";

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
