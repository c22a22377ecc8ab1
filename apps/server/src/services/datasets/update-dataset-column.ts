import type { schemas } from "@pharos/contract";
import { conflict, failIfInvalid, invalid } from "../../errors.ts";
import { inTransaction, type ServiceContext } from "../context.ts";
import type { BodyOf, PathOf, Unread } from "../operation-input.ts";
import {
  type DatasetColumn,
  requireColumn,
  requirePromptColumnSources,
  settingsProblems,
  settingsType,
  storeSettings,
  toColumn,
} from "./column.ts";
import { requireDataset, touchDataset } from "./dataset.ts";

/** Renames a column or replaces its settings (of its own type: the type never changes); cells are kept. */
export function updateDatasetColumn(
  ctx: ServiceContext,
  { datasetId, columnId }: PathOf<"updateDatasetColumn">,
  body: BodyOf<"updateDatasetColumn">,
): Promise<DatasetColumn> {
  const { settings, name, ...unread } = body;
  unread satisfies Unread;
  return inTransaction(ctx, async (tx) => {
    const dataset = await requireDataset(tx, datasetId, { forUpdate: true });
    const column = await requireColumn(tx, dataset.id, columnId);
    if (settings !== undefined) {
      const shape = settingsType(settings);
      if (shape !== column.type) {
        throw invalid("settings", `must be the settings of a ${column.type} column (the type cannot change)`);
      }
      const problems = settingsProblems(settings, "settings");
      failIfInvalid(problems);
    }
    if (name !== undefined && name !== column.name) {
      const other = await tx.db
        .selectFrom("datasetColumns")
        .select("id")
        .where("datasetId", "=", dataset.id)
        .where("name", "=", name)
        .executeTakeFirst();
      if (other) throw conflict(`The dataset already has a column named "${name}".`);
    }
    if (settings !== undefined && "promptId" in settings) {
      // A prompt column's settings (the type check above): the union's static `{}` does not narrow by `in`.
      await requirePromptColumnSources(tx, dataset.projectId, [settings as schemas.PromptColumnSettings]);
    }
    const now = tx.now();
    const changes = {
      ...(name !== undefined && { name }),
      ...(settings !== undefined && { settings: storeSettings(column.type, settings, tx.secrets) }),
      updatedAt: now,
    };
    try {
      await tx.db.updateTable("datasetColumns").set(changes).where("id", "=", column.id).execute();
    } catch (error) {
      if (tx.store.isUniqueViolation(error)) throw conflict(`The dataset already has a column named "${name}".`);
      throw error;
    }
    await touchDataset(tx, dataset.id, now);
    return toColumn({ ...column, ...changes });
  });
}
