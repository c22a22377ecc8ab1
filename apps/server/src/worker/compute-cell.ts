/**
 * One computed cell, end to end (ADR 0020): read the column, the row and (for a `prompt` column) the prompt's
 * current draft, or the deployment the column names; run the prompt through its provider record, or send the api request; return the value or why
 * there is none. Read at compute time, so an edit of the prompt or row before a cell is computed takes effect.
 */
import type { schemas } from "@pharos/contract";
import type { Kysely } from "kysely";
import { costOf } from "../llm/call-cost.ts";
import { callModel, ModelCallError } from "../llm/call-model.ts";
import type { CallOptions } from "../llm/model-target.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import type { StoredApiSettings } from "../services/datasets/column.ts";
import type { PromptSnapshot } from "../services/deployments/deployment.ts";
import { fromJson } from "../services/json.ts";
import type { StoredDraft } from "../services/prompts/prompt.ts";
import { resolveModelTarget } from "../services/providers/resolve-target.ts";
import type { Database } from "../store/schema.ts";
import { type ApiCallSettings, callApi, fillRequest } from "./api-cell.ts";
import { renderPrompt, valuesByColumnName } from "./render-prompt.ts";

/** A cell holds at most this many characters (DatasetCellValue). */
const MAX_CELL_CHARACTERS = 100_000;

export interface CellDeps {
  db: Kysely<Database>;
  secrets: SecretBox;
  call: Omit<CallOptions, "signal">;
  api: ApiCallSettings;
}

export interface CellKey {
  rowId: string;
  columnId: string;
  datasetId: string;
  workspaceId: string;
}

/** What computing a cell came to: a value, or the reason it failed; latency in ms, cost in USD. */
export type CellOutcome = { value: string; error: null; latency: number; cost: number } | FailedCell;
type FailedCell = { value: null; error: string; latency: number; cost: number };

const failed = (error: string, latency = 0, cost = 0): FailedCell => ({ value: null, error, latency, cost });

/** Undefined when the cell's row or column is gone (its state went with it). */
export async function computeCell(deps: CellDeps, key: CellKey, signal: AbortSignal): Promise<CellOutcome | undefined> {
  const { db } = deps;
  const column = await db.selectFrom("datasetColumns").selectAll().where("id", "=", key.columnId).executeTakeFirst();
  const row = await db.selectFrom("datasetRows").select("values").where("id", "=", key.rowId).executeTakeFirst();
  if (!column || !row) return undefined;
  const columns = await db
    .selectFrom("datasetColumns")
    .select(["id", "name"])
    .where("datasetId", "=", column.datasetId)
    .execute();
  const values = valuesByColumnName(fromJson<Record<string, unknown>>(row.values), columns);
  const outcome =
    column.type === "api"
      ? await apiCell(deps, fromJson<StoredApiSettings>(column.settings), values)
      : column.type === "prompt"
        ? await promptCell(deps, key, fromJson<schemas.PromptColumnSettings>(column.settings), values, signal)
        : failed("A static column is not computed.");
  if (outcome.value !== null && outcome.value.length > MAX_CELL_CHARACTERS) {
    return failed(
      `The value has ${outcome.value.length} characters; a cell holds at most ${MAX_CELL_CHARACTERS}.`,
      outcome.latency,
      outcome.cost,
    );
  }
  return outcome;
}

async function apiCell(
  deps: CellDeps,
  settings: StoredApiSettings,
  values: Record<string, string | null>,
): Promise<CellOutcome> {
  const request = fillRequest(settings, values);
  if ("error" in request) return failed(request.error);
  if (settings.sealedHeaders !== undefined) {
    try {
      Object.assign(request.headers, fromJson<Record<string, string>>(deps.secrets.open(settings.sealedHeaders)));
    } catch {
      return failed("The column's secret headers cannot be decrypted with this server's secret key.");
    }
  }
  const answer = await callApi(settings.method, request, deps.api);
  return "value" in answer
    ? { value: answer.value, error: null, latency: answer.latencyMs, cost: 0 }
    : failed(answer.error, answer.latencyMs);
}

/** A deployment's snapshot of the prompt, its config back in the draft's form (as evaluation runs read it). */
async function deploymentVersion(
  db: Kysely<Database>,
  promptId: string,
  deploymentId: string,
): Promise<Pick<StoredDraft, "config" | "messages" | "tools"> | undefined> {
  const deployment = await db
    .selectFrom("deployments")
    .select("snapshot")
    .where("id", "=", deploymentId)
    .where("promptId", "=", promptId)
    .executeTakeFirst();
  if (!deployment) return undefined;
  const snapshot = fromJson<PromptSnapshot>(deployment.snapshot);
  return {
    config: {
      provider: snapshot.config.providerName ?? null,
      providerId: snapshot.config.providerId ?? null,
      model: snapshot.config.model ?? null,
      settings: snapshot.config.settings ?? {},
    },
    messages: snapshot.messages,
    tools: snapshot.tools,
  };
}

async function promptCell(
  deps: CellDeps,
  key: CellKey,
  settings: schemas.PromptColumnSettings,
  values: Record<string, string | null>,
  signal: AbortSignal,
): Promise<CellOutcome> {
  const prompt = await deps.db
    .selectFrom("prompts")
    .select("draft")
    .where("id", "=", settings.promptId)
    .where("workspaceId", "=", key.workspaceId)
    .executeTakeFirst();
  if (!prompt) return failed(`The column's prompt ${settings.promptId} no longer exists.`);
  const version = settings.deploymentId
    ? await deploymentVersion(deps.db, settings.promptId, settings.deploymentId)
    : fromJson<StoredDraft>(prompt.draft);
  if (!version) return failed(`The column's deployment ${settings.deploymentId} no longer exists.`);
  const { config, messages, tools } = version;
  const rendered = renderPrompt(messages, values);
  if ("missing" in rendered) {
    const names = rendered.missing.map((name) => `{{${name}}}`).join(", ");
    return failed(`The row has no value for the prompt variable${rendered.missing.length > 1 ? "s" : ""} ${names}.`);
  }
  const resolved = await resolveModelTarget(deps.db, deps.secrets, key.workspaceId, config);
  if ("error" in resolved) return failed(`The prompt cannot run: ${resolved.error}.`);
  try {
    const call = await callModel(
      resolved.target,
      { messages: rendered.messages, tools, settings: config.settings },
      { ...deps.call, signal },
    );
    const cost = costOf(resolved.target, call.inputTokens, call.outputTokens) ?? 0;
    return { value: call.text, error: null, latency: call.latencyMs, cost };
  } catch (error) {
    if (error instanceof ModelCallError) return failed(error.message);
    throw error;
  }
}
