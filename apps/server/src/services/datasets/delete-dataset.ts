import { conflict } from "../../errors.ts";
import { inTransaction, type ServiceContext } from "../context.ts";
import { findActiveRun } from "../evaluations/run.ts";
import type { PathOf } from "../operation-input.ts";
import { requireDataset } from "./dataset.ts";

/**
 * Deletes the dataset with its columns and rows. An evaluator (active or archived) that refers to it, or an
 * unfinished evaluation run over it, keeps it (409): the dataset row is locked first, so an evaluator or run
 * created meanwhile is either seen here or fails. Finished runs keep their copy of the rows.
 */
export function deleteDataset(ctx: ServiceContext, { datasetId }: PathOf<"deleteDataset">): Promise<void> {
  return inTransaction(ctx, async (tx) => {
    const dataset = await requireDataset(tx, datasetId, { forUpdate: true });
    const evaluator = await tx.db
      .selectFrom("evaluators")
      .select("id")
      .where("datasetId", "=", dataset.id)
      .limit(1)
      .executeTakeFirst();
    if (evaluator) {
      throw conflict(
        `Evaluator ${evaluator.id} refers to this dataset; point it at another dataset or delete it first.`,
      );
    }
    const run = await findActiveRun(tx, "datasetId", dataset.id);
    if (run) {
      throw conflict(`Evaluation run ${run.id} over this dataset is ${run.status}; cancel it or let it finish first.`);
    }
    await tx.db.deleteFrom("datasetRows").where("datasetId", "=", dataset.id).execute();
    await tx.db.deleteFrom("datasetColumns").where("datasetId", "=", dataset.id).execute();
    await tx.db.deleteFrom("datasets").where("id", "=", dataset.id).execute();
  });
}
