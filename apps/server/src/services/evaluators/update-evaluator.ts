import type { schemas } from "@pharos/contract";
import { inTransaction, type ServiceContext } from "../context.ts";
import { toJson } from "../json.ts";
import { type Evaluator, toEvaluator } from "./evaluator.ts";
import { normalizeEvaluatorConfig } from "./evaluator-config.ts";
import { requireDatasetOfProject, requireEvaluator, requireJudgeProvider } from "./lookups.ts";

export function updateEvaluator(
  ctx: ServiceContext,
  promptId: string,
  evaluatorId: string,
  input: schemas.UpdateEvaluatorRequest,
): Promise<Evaluator> {
  return inTransaction(ctx, async (tx) => {
    const evaluator = await requireEvaluator(tx, promptId, evaluatorId);
    if (input.datasetId !== undefined) await requireDatasetOfProject(tx, input.datasetId, evaluator.projectId);
    const config = input.config === undefined ? undefined : normalizeEvaluatorConfig(input.config);
    if (config !== undefined) await requireJudgeProvider(tx, config);
    const changes = {
      ...(input.title !== undefined && { title: input.title }),
      ...(input.datasetId !== undefined && { datasetId: input.datasetId }),
      ...(config !== undefined && { config: toJson(config) }),
      ...(input.status !== undefined && { status: input.status }),
      updatedAt: tx.now(),
    };
    await tx.db.updateTable("evaluators").set(changes).where("id", "=", evaluator.id).execute();
    return toEvaluator({ ...evaluator, ...changes });
  });
}
