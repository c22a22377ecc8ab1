import { invalid } from "../../errors.ts";
import type { ServiceContext } from "../context.ts";
import { createdWithin } from "../created-range.ts";
import type { PathOf, QueryOf } from "../operation-input.ts";
import { paginate } from "../pagination.ts";
import { type ColumnRow, loadColumns } from "./column.ts";
import { requireDataset } from "./dataset.ts";
import { type DatasetRow, toRow } from "./row.ts";

type ComputedCells = NonNullable<DatasetRow["computed"]>;

const MAX_SELECTED_COLUMNS = 100;

/** The ids of the columns `selection` names (ids first, then names), in its order; every column when omitted. */
function selectColumns(columns: ColumnRow[], selection: string | undefined): string[] {
  if (selection === undefined) return columns.map((column) => column.id);
  const items = selection.split(",");
  if (items.length > MAX_SELECTED_COLUMNS) {
    throw invalid("query.columns", `names at most ${MAX_SELECTED_COLUMNS} columns (got ${items.length})`);
  }
  const byId = new Map(columns.map((column) => [column.id, column.id]));
  const byName = new Map(columns.map((column) => [column.name, column.id]));
  const ids: string[] = [];
  for (const item of items) {
    const id = byId.get(item) ?? byName.get(item);
    if (id === undefined) throw invalid("query.columns", `"${item}" names no column of the dataset`);
    if (!ids.includes(id)) ids.push(id);
  }
  return ids;
}

/** One page of rows, cells keyed by column id (every column, or those `columns` selects). */
export async function listDatasetRows(
  ctx: ServiceContext,
  { datasetId }: PathOf<"listDatasetRows">,
  query: QueryOf<"listDatasetRows">,
) {
  const { columns, createdAfter, createdBefore, ...page } = query;
  const dataset = await requireDataset(ctx, datasetId);
  const columnIds = selectColumns(await loadColumns(ctx, dataset.id), columns);
  const select = ctx.db
    .selectFrom("datasetRows")
    .selectAll()
    .where("datasetId", "=", dataset.id)
    .where(createdWithin("datasetRows", { createdAfter, createdBefore }));
  const rows = await paginate(ctx, {
    operation: "listDatasetRows",
    filters: { datasetId: dataset.id, columns, createdAfter, createdBefore },
    page,
    table: "datasetRows",
    select,
    toItem: (row) => toRow(row, columnIds),
  });
  return { ...rows, items: await withComputedCells(ctx, rows.items, columnIds) };
}

/**
 * The rows with the state of their computed cells (of the selected columns), for rows that have any. The page
 * and the cells are two reads: a cell settled between them would show `done` beside the value it replaced, so
 * rows with cells are read again after their cells (a value is written in the transaction that settles its cell).
 */
async function withComputedCells(ctx: ServiceContext, rows: DatasetRow[], columnIds: string[]): Promise<DatasetRow[]> {
  if (rows.length === 0 || columnIds.length === 0) return rows;
  const cells = await ctx.db
    .selectFrom("datasetComputedCells")
    .select(["rowId", "columnId", "status", "reason", "latency", "cost", "updatedAt"])
    .where(
      "rowId",
      "in",
      rows.map((row) => row.id),
    )
    .where("columnId", "in", columnIds)
    .execute();
  if (cells.length === 0) return rows;
  const byRow = new Map<string, ComputedCells>();
  for (const { rowId, columnId, ...state } of cells) {
    const computed = byRow.get(rowId) ?? {};
    computed[columnId] = state;
    byRow.set(rowId, computed);
  }
  const reread = await ctx.db
    .selectFrom("datasetRows")
    .selectAll()
    .where("id", "in", [...byRow.keys()])
    .execute();
  const current = new Map(reread.map((row) => [row.id, toRow(row, columnIds)]));
  return rows.map((row) => {
    const computed = byRow.get(row.id);
    return computed ? { ...(current.get(row.id) ?? row), computed } : row;
  });
}
