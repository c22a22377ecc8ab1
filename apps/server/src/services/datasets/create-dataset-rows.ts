import { type ErrorDetail, failIfInvalid } from "../../errors.ts";
import { inTransaction, type ServiceContext } from "../context.ts";
import { toJson } from "../json.ts";
import type { BodyOf, PathOf, QueryOf, Unread } from "../operation-input.ts";
import { loadColumns } from "./column.ts";
import { requireDataset } from "./dataset.ts";
import { columnKeyResolver, type DatasetRow, mergeCells, resolveValues, toRow } from "./row.ts";

/**
 * Adds rows all or none, in request order: every key is checked before anything is written, and the rows and
 * the new rowCount are written in one transaction. The rows share `createdAt`; their ids follow the request
 * order, so the (createdAt, id) keyset lists them as they were given.
 */
export function createDatasetRows(
  ctx: ServiceContext,
  { datasetId }: PathOf<"createDatasetRows">,
  query: QueryOf<"createDatasetRows">,
  body: BodyOf<"createDatasetRows">,
): Promise<DatasetRow[]> {
  const { valuesBy, ...unreadQuery } = query;
  unreadQuery satisfies Unread;
  const { rows: inputRows, ...unread } = body;
  unread satisfies Unread;
  return inTransaction(ctx, async (tx) => {
    const dataset = await requireDataset(tx, datasetId, { forUpdate: true });
    const columns = await loadColumns(tx, dataset.id);
    const resolve = columnKeyResolver(columns, valuesBy);
    const problems: ErrorDetail[] = [];
    const cellsOfRows = inputRows.map((row, index) => {
      const resolved = resolveValues(row.values, resolve, `rows.${index}.values`, valuesBy);
      problems.push(...resolved.problems);
      return resolved.cells;
    });
    failIfInvalid(problems);

    const now = tx.now();
    const rows = cellsOfRows.map((cells) => ({
      id: tx.newId("row"),
      datasetId: dataset.id,
      values: toJson(mergeCells({}, cells)),
      createdAt: now,
      updatedAt: now,
    }));
    await tx.db.insertInto("datasetRows").values(rows).execute();
    await tx.db
      .updateTable("datasets")
      .set((eb) => ({ rowCount: eb("rowCount", "+", rows.length), updatedAt: now }))
      .where("id", "=", dataset.id)
      .execute();
    const columnIds = columns.map((column) => column.id);
    return rows.map((row) => toRow(row, columnIds));
  });
}
