import { inTransaction, type ServiceContext } from "../context.ts";
import type { PathOf } from "../operation-input.ts";
import { requireScoreConfig } from "./score-config.ts";

/** Deletes the config: scores of its name are no longer checked; stored ones are kept. */
export function deleteScoreConfig(
  ctx: ServiceContext,
  { projectId, scoreConfigId }: PathOf<"deleteScoreConfig">,
): Promise<void> {
  return inTransaction(ctx, async (tx) => {
    const config = await requireScoreConfig(tx, projectId, scoreConfigId);
    await tx.db.deleteFrom("scoreConfigs").where("id", "=", config.id).execute();
  });
}
