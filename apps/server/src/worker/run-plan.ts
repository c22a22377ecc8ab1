/** What a run evaluates, as copied when it was accepted: fixed for the run's life, so workers cache it. */
import type { schemas } from "@pharos/contract";
import type { Kysely } from "kysely";
import { fromJson } from "../services/json.ts";
import type { Database } from "../store/schema.ts";

export interface RunPlan {
  id: string;
  workspaceId: string;
  promptVersion: {
    config: schemas.PromptConfig;
    messages: schemas.PromptMessage[];
    tools: schemas.PromptTool[];
  };
  evaluatorConfig: schemas.EvaluatorConfig;
  columns: { id: string; name: string }[];
  totalRows: number;
}

export async function readRunPlan(db: Kysely<Database>, runId: string): Promise<RunPlan | undefined> {
  const row = await db
    .selectFrom("evaluationRuns")
    .select(["id", "workspaceId", "promptVersion", "evaluatorConfig", "columns", "totalRows"])
    .where("id", "=", runId)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    promptVersion: fromJson(row.promptVersion),
    evaluatorConfig: fromJson(row.evaluatorConfig),
    columns: fromJson(row.columns),
    totalRows: row.totalRows,
  };
}
