import type { schemas } from "@pharos/contract";
import { invalid, notFound } from "../../errors.ts";
import type { Database } from "../../store/schema.ts";
import type { ServiceContext } from "../context.ts";
import { fromJson } from "../json.ts";
import { assertProjectAccess } from "../projects/project.ts";
import { type ColumnRow, toColumn } from "./column.ts";

export type Dataset = schemas.Dataset;
export type DatasetSummary = schemas.DatasetSummary;
export type Icon = schemas.Icon;

export const DEFAULT_DATASET_ICON: Icon = { type: "emoji", value: "📊" };

export function toDatasetSummary(row: Database["datasets"]): DatasetSummary {
  return {
    id: row.id,
    projectId: row.projectId,
    title: row.title,
    icon: fromJson<Icon>(row.icon),
    description: row.description,
    rowCount: row.rowCount,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export function toDataset(row: Database["datasets"], columns: ColumnRow[]): Dataset {
  return { ...toDatasetSummary(row), columns: columns.map(toColumn) };
}

/**
 * The dataset, if it is in the caller's workspace (404 otherwise) and the key may use its project (403).
 * `forUpdate` locks the dataset row until the transaction ends, so writes to one dataset (its columns, rows and
 * rowCount) are serialized.
 */
export async function requireDataset(ctx: ServiceContext, datasetId: string, options: { forUpdate?: boolean } = {}) {
  const select = ctx.db
    .selectFrom("datasets")
    .selectAll()
    .where("id", "=", datasetId)
    .where("workspaceId", "=", ctx.principal.workspaceId);
  const dataset = await (options.forUpdate ? ctx.store.sql.locks.forUpdate(select) : select).executeTakeFirst();
  if (!dataset) throw notFound("Dataset");
  assertProjectAccess(ctx, dataset.projectId);
  return dataset;
}

/** Records a change to the dataset (its columns or rows): `updatedAt` moves on every change. */
export async function touchDataset(ctx: ServiceContext, datasetId: string, now: number): Promise<void> {
  await ctx.db.updateTable("datasets").set({ updatedAt: now }).where("id", "=", datasetId).execute();
}

/**
 * A dataset for an evaluator: unknown in the workspace is 404, one of another project 400. Locked until the
 * transaction ends, so a concurrent deleteDataset cannot remove it under the new reference.
 */
export async function requireDatasetOfProject(ctx: ServiceContext, datasetId: string, projectId: string) {
  const dataset = await requireDataset(ctx, datasetId, { forUpdate: true });
  if (dataset.projectId !== projectId) throw invalid("datasetId", "must be a dataset of the prompt's project");
  return dataset;
}
