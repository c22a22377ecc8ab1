import { inTransaction, type ServiceContext } from "../context.ts";
import type { BodyOf, PathOf, Unread } from "../operation-input.ts";
import { requireScoreConfig, ruleColumns, type ScoreConfig, toScoreConfig } from "./score-config.ts";

/** PATCH: `rule` replaces the rule whole and binds scores created afterwards; stored scores stay as they are. */
export function updateScoreConfig(
  ctx: ServiceContext,
  { projectId, scoreConfigId }: PathOf<"updateScoreConfig">,
  body: BodyOf<"updateScoreConfig">,
): Promise<ScoreConfig> {
  const { description, rule, ...unread } = body;
  unread satisfies Unread;
  const columns = rule === undefined ? {} : ruleColumns(rule);
  return inTransaction(ctx, async (tx) => {
    const config = await requireScoreConfig(tx, projectId, scoreConfigId);
    const changes = { ...(description !== undefined && { description }), ...columns, updatedAt: tx.now() };
    await tx.db.updateTable("scoreConfigs").set(changes).where("id", "=", config.id).execute();
    return toScoreConfig({ ...config, ...changes });
  });
}
