import { notFound } from "../../errors.ts";
import type { ServiceContext } from "../context.ts";
import type { PathOf } from "../operation-input.ts";
import { requireProject } from "../projects/project.ts";

/** Deletes one score of the project, whatever its source. */
export async function deleteScore(ctx: ServiceContext, { projectId, scoreId }: PathOf<"deleteScore">): Promise<void> {
  await requireProject(ctx, projectId);
  const deleted = await ctx.db
    .deleteFrom("scores")
    .where("id", "=", scoreId)
    .where("projectId", "=", projectId)
    .executeTakeFirst();
  if (deleted.numDeletedRows === 0n) throw notFound("Score");
}
