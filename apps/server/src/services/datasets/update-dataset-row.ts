import { failIfInvalid } from "../../errors.ts";
import { inTransaction, type ServiceContext } from "../context.ts";
import { fromJson, toJson } from "../json.ts";
import type { BodyOf, PathOf, QueryOf, Unread } from "../operation-input.ts";
import { loadColumns } from "./column.ts";
import { requireDataset, touchDataset } from "./dataset.ts";
import {
  columnKeyResolver,
  type DatasetRow,
  mergeCells,
  requireRow,
  resolveValues,
  type StoredValues,
  toRow,
} from "./row.ts";

/** Merges cells into the row: a value replaces its cell, `null` clears it, other cells keep their value. */
export function updateDatasetRow(
  ctx: ServiceContext,
  { datasetId, rowId }: PathOf<"updateDatasetRow">,
  query: QueryOf<"updateDatasetRow">,
  body: BodyOf<"updateDatasetRow">,
): Promise<DatasetRow> {
  const { valuesBy, ...unreadQuery } = query;
  unreadQuery satisfies Unread;
  const { values, ...unread } = body;
  unread satisfies Unread;
  return inTransaction(ctx, async (tx) => {
    const dataset = await requireDataset(tx, datasetId, { forUpdate: true });
    const row = await requireRow(tx, dataset.id, rowId);
    const columns = await loadColumns(tx, dataset.id);
    const { cells, problems } = resolveValues(values, columnKeyResolver(columns, valuesBy), "values", valuesBy);
    failIfInvalid(problems);
    const now = tx.now();
    const changes = { values: toJson(mergeCells(fromJson<StoredValues>(row.values), cells)), updatedAt: now };
    await tx.db.updateTable("datasetRows").set(changes).where("id", "=", row.id).execute();
    await touchDataset(tx, dataset.id, now);
    return toRow(
      { ...row, ...changes },
      columns.map((column) => column.id),
    );
  });
}
