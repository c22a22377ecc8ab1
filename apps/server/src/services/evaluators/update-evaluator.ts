import { inTransaction, type ServiceContext } from "../context.ts";
import { requireDatasetOfProject } from "../datasets/dataset.ts";
import { toJson } from "../json.ts";
import type { BodyOf, PathOf, Unread } from "../operation-input.ts";
import { type Evaluator, onlineColumns, requireEvaluator, toEvaluator } from "./evaluator.ts";
import { normalizeEvaluatorConfig, requireJudgeProvider } from "./evaluator-config.ts";

export function updateEvaluator(
  ctx: ServiceContext,
  { promptId, evaluatorId }: PathOf<"updateEvaluator">,
  body: BodyOf<"updateEvaluator">,
): Promise<Evaluator> {
  const { title, datasetId, config: requested, online, status, ...unread } = body;
  unread satisfies Unread;
  return inTransaction(ctx, async (tx) => {
    const evaluator = await requireEvaluator(tx, promptId, evaluatorId);
    if (datasetId !== undefined) await requireDatasetOfProject(tx, datasetId, evaluator.projectId);
    const config = requested === undefined ? undefined : normalizeEvaluatorConfig(requested);
    if (config !== undefined) await requireJudgeProvider(tx, config);
    const changes = {
      ...(title !== undefined && { title }),
      ...(datasetId !== undefined && { datasetId }),
      ...(config !== undefined && { config: toJson(config) }),
      ...(online !== undefined && onlineColumns(online)),
      ...(status !== undefined && { status }),
      updatedAt: tx.now(),
    };
    await tx.db.updateTable("evaluators").set(changes).where("id", "=", evaluator.id).execute();
    return toEvaluator({ ...evaluator, ...changes });
  });
}
