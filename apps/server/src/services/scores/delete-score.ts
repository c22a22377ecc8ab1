import { notFound } from "../../errors.ts";
import { inTransaction, type ServiceContext } from "../context.ts";
import { addToScoreRollups, scoreRollupRows } from "../metrics/rollups.ts";
import type { PathOf } from "../operation-input.ts";
import { requireProject } from "../projects/project.ts";

/** Deletes one score of the project, whatever its source, and takes it out of the score rollups. */
export async function deleteScore(ctx: ServiceContext, { projectId, scoreId }: PathOf<"deleteScore">): Promise<void> {
  await requireProject(ctx, projectId);
  await inTransaction(ctx, async (tx) => {
    const deleted = await tx.db
      .deleteFrom("scores")
      .where("id", "=", scoreId)
      .where("projectId", "=", projectId)
      .returning(["projectId", "name", "createdAt", "numberValue"])
      .executeTakeFirst();
    if (!deleted) throw notFound("Score");
    await addToScoreRollups(tx.db, scoreRollupRows([{ ...deleted, count: -1 }]));
  });
}
