/**
 * Dataset rows. Cells are stored sparsely: a JSON object keyed by column id holding only non-empty cells, so a
 * new column needs no write to existing rows and an absent key is an empty cell (`null`).
 */
import type { schemas } from "@pharos/contract";
import { type ErrorDetail, notFound } from "../../errors.ts";
import type { Database } from "../../store/schema.ts";
import type { ServiceContext } from "../context.ts";
import { fromJson } from "../json.ts";
import type { QueryOf } from "../operation-input.ts";
import type { ColumnRow } from "./column.ts";

export type DatasetRow = schemas.DatasetRow;
export type CellValue = schemas.DatasetCellValue;
/** How row values are keyed (the `valuesBy` query parameter of row writes). */
export type ValuesBy = NonNullable<QueryOf<"createDatasetRows">["valuesBy"]>;
export type StoredValues = Record<string, Exclude<CellValue, null>>;

/** The row as returned: every given column present (in that order), `null` for an empty cell. */
export function toRow(row: Database["datasetRows"], columnIds: readonly string[]): DatasetRow {
  const stored = fromJson<StoredValues>(row.values);
  return {
    id: row.id,
    values: Object.fromEntries(columnIds.map((id) => [id, stored[id] ?? null])),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    ...(row.sourceSpanId ? { sourceSpanId: row.sourceSpanId } : {}),
  };
}

/** Maps request keys (column names or ids, as `valuesBy` says) to column ids. */
export function columnKeyResolver(columns: readonly ColumnRow[], valuesBy: ValuesBy | undefined) {
  const byKey = new Map(columns.map((column) => [valuesBy === "columnId" ? column.id : column.name, column.id]));
  return (key: string) => byKey.get(key);
}

/**
 * The cells of one request row keyed by column id, or a detail per key that names no column of the dataset
 * (`<field>.<key>`, e.g. `rows.2.values.answr`).
 */
export function resolveValues(
  values: Record<string, CellValue>,
  resolve: (key: string) => string | undefined,
  field: string,
  valuesBy: ValuesBy | undefined,
): { cells: [columnId: string, value: CellValue][]; problems: ErrorDetail[] } {
  const cells: [string, CellValue][] = [];
  const problems: ErrorDetail[] = [];
  for (const [key, value] of Object.entries(values)) {
    const columnId = resolve(key);
    if (columnId === undefined) {
      const what = valuesBy === "columnId" ? "column id" : "column name";
      problems.push({ field: `${field}.${key}`, issue: `"${key}" is not a ${what} of the dataset` });
    } else {
      cells.push([columnId, value]);
    }
  }
  return { cells, problems };
}

/** Throws 400 with every unknown key found. */

/** Writes cells into stored values: a value replaces the cell, `null` clears it. */
export function mergeCells(stored: StoredValues, cells: [string, CellValue][]): StoredValues {
  const merged = { ...stored };
  for (const [columnId, value] of cells) {
    if (value === null) delete merged[columnId];
    else merged[columnId] = value;
  }
  return merged;
}

/** The row, if it belongs to the dataset (a row of another dataset is missing: 404). */
export async function requireRow(ctx: ServiceContext, datasetId: string, rowId: string) {
  const row = await ctx.db
    .selectFrom("datasetRows")
    .selectAll()
    .where("id", "=", rowId)
    .where("datasetId", "=", datasetId)
    .executeTakeFirst();
  if (!row) throw notFound("Row");
  return row;
}
