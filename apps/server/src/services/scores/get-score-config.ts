import type { ServiceContext } from "../context.ts";
import type { PathOf } from "../operation-input.ts";
import { requireScoreConfig, type ScoreConfig, toScoreConfig } from "./score-config.ts";

export async function getScoreConfig(
  ctx: ServiceContext,
  { projectId, scoreConfigId }: PathOf<"getScoreConfig">,
): Promise<ScoreConfig> {
  return toScoreConfig(await requireScoreConfig(ctx, projectId, scoreConfigId));
}
