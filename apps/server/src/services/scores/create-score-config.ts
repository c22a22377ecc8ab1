import { conflict } from "../../errors.ts";
import type { ServiceContext } from "../context.ts";
import type { BodyOf, PathOf, Unread } from "../operation-input.ts";
import { requireProject } from "../projects/project.ts";
import { ruleColumns, type ScoreConfig, toScoreConfig } from "./score-config.ts";

/** Types a score name of the project; a name has one config at most (409). */
export async function createScoreConfig(
  ctx: ServiceContext,
  { projectId }: PathOf<"createScoreConfig">,
  body: BodyOf<"createScoreConfig">,
): Promise<ScoreConfig> {
  const { name, description, rule, ...unread } = body;
  unread satisfies Unread;
  await requireProject(ctx, projectId);
  const now = ctx.now();
  const row = {
    id: ctx.newId("scoreConfig"),
    workspaceId: ctx.principal.workspaceId,
    projectId,
    name,
    ...ruleColumns(rule),
    description: description ?? "",
    createdAt: now,
    updatedAt: now,
  };
  try {
    await ctx.db.insertInto("scoreConfigs").values(row).execute();
  } catch (error) {
    if (ctx.store.isUniqueViolation(error)) throw conflict(`The project already has a score config named "${name}".`);
    throw error;
  }
  return toScoreConfig(row);
}
