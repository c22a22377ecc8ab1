import type { schemas } from "@pharos/contract";
import type { Insertable } from "kysely";
import { type ErrorDetail, failIfInvalid, invalid, notFound } from "../../errors.ts";
import type { Database } from "../../store/schema.ts";
import { inTransaction, type ServiceContext } from "../context.ts";
import type { PromptSnapshot } from "../deployments/deployment.ts";
import { fromJson } from "../json.ts";
import type { BodyOf, PathOf, Unread } from "../operation-input.ts";
import type { StoredDraft } from "../prompts/prompt.ts";
import { privateHostReason } from "../webhooks/private-addresses.ts";
import { type ColumnRow, loadColumns } from "./column.ts";
import { apiColumnInputs, type ComputedColumn, computeStages, promptColumnInputs } from "./computed-columns.ts";
import { requireDataset } from "./dataset.ts";

type RunMode = schemas.DynamicColumnsRunMode;
type CellRow = Insertable<Database["datasetComputedCells"]>;

/** One request queues the cells of at most this many rows (a larger dataset is computed in parts). */
export const MAX_FETCH_ROWS = 1000;
/** Cells written per statement: well under either database's limit of bound parameters. */
const INSERT_CHUNK = 1000;

/**
 * Queues computed cells (202): checks the columns (computed ones of the dataset, no cycle, a public api URL),
 * chooses the rows the run mode says, and writes their cells as `pending` in one transaction, replacing the
 * state they had; then wakes this process's worker (others poll).
 */
export async function fetchDynamicColumns(
  ctx: ServiceContext,
  { datasetId }: PathOf<"fetchDynamicColumns">,
  body: BodyOf<"fetchDynamicColumns">,
): Promise<schemas.FetchDynamicColumnsResponse> {
  const { columnIds, datasetRowIds, runMode = "all", ...unread } = body;
  unread satisfies Unread;
  const response = await inTransaction(ctx, async (tx) => {
    const dataset = await requireDataset(tx, datasetId, { forUpdate: true });
    const computed = await computedColumns(tx, dataset.projectId, await loadColumns(tx, dataset.id));
    const chosen = chooseColumns(computed, columnIds);
    const stages = stagesOrThrow(computed, chosen);
    if (!tx.webhooks.allowPrivateAddresses) refusePrivateUrls(chosen);

    const rowIds = await chooseRows(tx, dataset, datasetRowIds, runMode);
    const queued = new Map<string, string[]>();
    for (const { column } of chosen) {
      queued.set(column.id, runMode === "failed" ? await failedRows(tx, column.id, rowIds) : rowIds);
    }
    const rowsQueued = new Set([...queued.values()].flat()).size;
    if (rowsQueued > MAX_FETCH_ROWS) {
      throw invalid(
        "datasetRowIds",
        `one request computes at most ${MAX_FETCH_ROWS} rows (this one would queue ${rowsQueued}); name the rows with datasetRowIds, in parts`,
      );
    }

    const now = tx.now();
    const cells: CellRow[] = [];
    for (const [columnId, rows] of queued) {
      for (const rowId of rows) {
        cells.push({
          rowId,
          columnId,
          datasetId: dataset.id,
          workspaceId: dataset.workspaceId,
          status: "pending",
          stage: stages.get(columnId) ?? 0,
          reason: null,
          latency: null,
          cost: null,
          leaseOwner: null,
          leaseExpiresAt: null,
          queuedAt: now,
          updatedAt: now,
        });
      }
    }
    await replaceCells(tx, queued, cells);
    return {
      datasetId: dataset.id,
      runMode,
      columnRuns: chosen.map(({ column }) => ({
        columnId: column.id,
        runMode,
        totalRowsInDataset: dataset.rowCount,
        queuedRowsCount: queued.get(column.id)?.length ?? 0,
      })),
    };
  });
  ctx.wakeWorkers();
  return response;
}

/** The dataset's prompt and api columns with what each reads (a prompt column's prompt must exist: 404). */
async function computedColumns(ctx: ServiceContext, projectId: string, columns: ColumnRow[]) {
  const promptIds = columns.flatMap((column) =>
    column.type === "prompt" ? [fromJson<schemas.PromptColumnSettings>(column.settings).promptId] : [],
  );
  const prompts =
    promptIds.length === 0
      ? []
      : await ctx.db
          .selectFrom("prompts")
          .select(["id", "draft"])
          .where("projectId", "=", projectId)
          .where("id", "in", [...new Set(promptIds)])
          .execute();
  const drafts = new Map(prompts.map((prompt) => [prompt.id, fromJson<StoredDraft>(prompt.draft)]));
  const deploymentIds = columns.flatMap((column) => {
    const deploymentId =
      column.type === "prompt" ? fromJson<schemas.PromptColumnSettings>(column.settings).deploymentId : undefined;
    return deploymentId === undefined ? [] : [deploymentId];
  });
  const deployments =
    deploymentIds.length === 0
      ? []
      : await ctx.db
          .selectFrom("deployments")
          .select(["id", "promptId", "snapshot"])
          .where("projectId", "=", projectId)
          .where("id", "in", [...new Set(deploymentIds)])
          .execute();
  const snapshots = new Map(
    deployments.map((deployment) => [
      deployment.id,
      { ...deployment, ...fromJson<PromptSnapshot>(deployment.snapshot) },
    ]),
  );
  const computed: ComputedColumn[] = [];
  for (const column of columns) {
    if (column.type === "api") {
      computed.push({ column, inputs: apiColumnInputs(fromJson<schemas.ApiColumnSettings>(column.settings)) });
    } else if (column.type === "prompt") {
      const { promptId, deploymentId } = fromJson<schemas.PromptColumnSettings>(column.settings);
      const draft = drafts.get(promptId);
      // Kept as written when its prompt is deleted; computing it is impossible until its settings name another.
      if (!draft) throw notFound(`Prompt ${promptId} of column "${column.name}"`);
      if (deploymentId === undefined) {
        computed.push({ column, inputs: promptColumnInputs(draft.messages) });
        continue;
      }
      const snapshot = snapshots.get(deploymentId);
      if (snapshot?.promptId !== promptId) throw notFound(`Deployment ${deploymentId} of column "${column.name}"`);
      computed.push({ column, inputs: promptColumnInputs(snapshot.messages) });
    }
  }
  return computed;
}

/** The columns `columnIds` names (each a computed column of the dataset: 400 otherwise), in dataset order. */
function chooseColumns(computed: ComputedColumn[], columnIds: string[] | undefined): ComputedColumn[] {
  if (columnIds === undefined) return computed;
  const problems: ErrorDetail[] = [];
  columnIds.forEach((id, index) => {
    if (!computed.some((entry) => entry.column.id === id)) {
      problems.push({ field: `columnIds.${index}`, issue: `"${id}" names no prompt or api column of the dataset` });
    }
  });
  failIfInvalid(problems);
  return computed.filter((entry) => columnIds.includes(entry.column.id));
}

function stagesOrThrow(computed: ComputedColumn[], chosen: ComputedColumn[]): Map<string, number> {
  const result = computeStages(computed, new Set(chosen.map((entry) => entry.column.id)));
  if ("cycle" in result) {
    throw invalid(
      "columnIds",
      `computed columns read each other in a cycle (${result.cycle.join(" → ")}): no order computes them`,
    );
  }
  return result.stages;
}

/**
 * An api URL whose host is written out (no placeholder) must not be loopback or private; a host that comes from
 * a cell is checked when the cell is computed (and every address it resolves to, when it connects).
 */
function refusePrivateUrls(chosen: ComputedColumn[]): void {
  const problems: ErrorDetail[] = [];
  for (const { column } of chosen) {
    if (column.type !== "api") continue;
    const { url } = fromJson<schemas.ApiColumnSettings>(column.settings);
    const authority = /^https?:\/\/([^/?#]*)/i.exec(url)?.[1] ?? "";
    if (authority.includes("{{")) continue;
    let reason: string | undefined;
    try {
      reason = privateHostReason(new URL(url).hostname);
    } catch {
      reason = undefined; // Not a URL once parsed: the cell fails with that reason.
    }
    if (reason !== undefined) {
      problems.push({
        field: "columnIds",
        issue: `column "${column.name}" calls ${reason}; the operator may allow private addresses with PHAROS_WEBHOOKS_ALLOW_PRIVATE=true`,
      });
    }
  }
  failIfInvalid(problems);
}

/** The rows to compute, oldest first: those named (each a row of the dataset: 400 otherwise) or all; `first` keeps one. */
async function chooseRows(
  ctx: ServiceContext,
  dataset: Database["datasets"],
  datasetRowIds: string[] | undefined,
  runMode: RunMode,
): Promise<string[]> {
  if (datasetRowIds === undefined && runMode === "all" && dataset.rowCount > MAX_FETCH_ROWS) {
    throw invalid(
      "datasetRowIds",
      `one request computes at most ${MAX_FETCH_ROWS} rows (the dataset has ${dataset.rowCount}); name the rows with datasetRowIds, in parts`,
    );
  }
  let select = ctx.db
    .selectFrom("datasetRows")
    .select("id")
    .where("datasetId", "=", dataset.id)
    .orderBy("createdAt")
    .orderBy("id");
  if (datasetRowIds !== undefined) select = select.where("id", "in", datasetRowIds);
  if (runMode === "first") select = select.limit(1);
  const rows = (await select.execute()).map((row) => row.id);
  if (datasetRowIds !== undefined && runMode !== "first" && rows.length < new Set(datasetRowIds).size) {
    const found = new Set(rows);
    failIfInvalid(
      datasetRowIds.flatMap((id, index) =>
        found.has(id) ? [] : [{ field: `datasetRowIds.${index}`, issue: `"${id}" names no row of the dataset` }],
      ),
    );
  }
  return rows;
}

/** Of `rowIds`, those whose cell in the column failed when last computed. */
async function failedRows(ctx: ServiceContext, columnId: string, rowIds: string[]): Promise<string[]> {
  const failed = new Set<string>();
  for (let start = 0; start < rowIds.length; start += INSERT_CHUNK) {
    const found = await ctx.db
      .selectFrom("datasetComputedCells")
      .select("rowId")
      .where("columnId", "=", columnId)
      .where("status", "=", "failed")
      .where("rowId", "in", rowIds.slice(start, start + INSERT_CHUNK))
      .execute();
    for (const { rowId } of found) failed.add(rowId);
  }
  return rowIds.filter((id) => failed.has(id));
}

/** Replaces the state of the queued cells: a worker computing one of them finds its lease gone and drops its result. */
async function replaceCells(ctx: ServiceContext, queued: Map<string, string[]>, cells: CellRow[]): Promise<void> {
  for (const [columnId, rowIds] of queued) {
    for (let start = 0; start < rowIds.length; start += INSERT_CHUNK) {
      await ctx.db
        .deleteFrom("datasetComputedCells")
        .where("columnId", "=", columnId)
        .where("rowId", "in", rowIds.slice(start, start + INSERT_CHUNK))
        .execute();
    }
  }
  for (let start = 0; start < cells.length; start += INSERT_CHUNK) {
    await ctx.store.insertRows(ctx.db, "datasetComputedCells", cells.slice(start, start + INSERT_CHUNK));
  }
}
