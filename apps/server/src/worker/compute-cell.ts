/**
 * One computed cell, end to end (ADR 0020): read the column, the row and (for a `prompt` column) the prompt's
 * current draft, or the deployment the column names; run the prompt through its provider record, or send the api request; return the value or why
 * there is none. The row is read at compute time, the column's plan (prompt, provider) once per worker pass,
 * so an edit of the prompt or row before a cell is computed takes effect.
 */
import type { schemas } from "@pharos/contract";
import type { Kysely, Selectable } from "kysely";
import { costOf } from "../llm/call-cost.ts";
import { callModel, ModelCallError } from "../llm/call-model.ts";
import type { CallOptions, ModelTarget } from "../llm/model-target.ts";
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

/**
 * What every cell of a column needs, read once per pass of the worker (a claim's cells) rather than per cell:
 * the column, its dataset's column names and, for a prompt column, the prompt version and its provider record
 * with credentials opened, or why the column cannot run. Read again at the next pass, so an edit of the
 * prompt, column or provider takes effect at the next claim.
 */
interface ColumnPlan {
  column: Selectable<Database["datasetColumns"]>;
  columns: { id: string; name: string }[];
  prompt?: PromptPlan | FailedCell;
}
type PromptPlan = {
  version: Pick<StoredDraft, "config" | "messages" | "tools">;
  target: ModelTarget;
};

/** The plans of one pass, by column id (undefined: the column is gone). */
export type ColumnPlans = Map<string, Promise<ColumnPlan | undefined>>;

async function readColumnPlan(deps: CellDeps, key: CellKey): Promise<ColumnPlan | undefined> {
  const { db } = deps;
  const column = await db.selectFrom("datasetColumns").selectAll().where("id", "=", key.columnId).executeTakeFirst();
  if (!column) return undefined;
  const columns = await db
    .selectFrom("datasetColumns")
    .select(["id", "name"])
    .where("datasetId", "=", column.datasetId)
    .execute();
  const prompt =
    column.type === "prompt"
      ? await readPromptPlan(deps, key, fromJson<schemas.PromptColumnSettings>(column.settings))
      : undefined;
  return { column, columns, ...(prompt && { prompt }) };
}

/**
 * Undefined when the cell's row or column is gone (its state went with it). `plans` holds what the cells of
 * the same pass share; a cell computed alone reads its own.
 */
export async function computeCell(
  deps: CellDeps,
  key: CellKey,
  signal: AbortSignal,
  plans: ColumnPlans = new Map(),
): Promise<CellOutcome | undefined> {
  let planned = plans.get(key.columnId);
  if (!planned) {
    planned = readColumnPlan(deps, key);
    plans.set(key.columnId, planned);
  }
  const plan = await planned;
  const row = await deps.db.selectFrom("datasetRows").select("values").where("id", "=", key.rowId).executeTakeFirst();
  if (!plan || !row) return undefined;
  const { column, columns } = plan;
  const values = valuesByColumnName(fromJson<Record<string, unknown>>(row.values), columns);
  const outcome =
    column.type === "api"
      ? await apiCell(deps, fromJson<StoredApiSettings>(column.settings), values)
      : plan.prompt
        ? await promptCell(deps, plan.prompt, values, signal)
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

/** The column's prompt version and its model target, or why the column cannot run. */
async function readPromptPlan(
  deps: CellDeps,
  key: CellKey,
  settings: schemas.PromptColumnSettings,
): Promise<PromptPlan | FailedCell> {
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
  const resolved = await resolveModelTarget(deps.db, deps.secrets, key.workspaceId, version.config);
  if ("error" in resolved) return failed(`The prompt cannot run: ${resolved.error}.`);
  return { version, target: resolved.target };
}

async function promptCell(
  deps: CellDeps,
  plan: PromptPlan | FailedCell,
  values: Record<string, string | null>,
  signal: AbortSignal,
): Promise<CellOutcome> {
  if (!("target" in plan)) return plan;
  const { version, target } = plan;
  const { config, messages, tools } = version;
  const rendered = renderPrompt(messages, values);
  if ("missing" in rendered) {
    const names = rendered.missing.map((name) => `{{${name}}}`).join(", ");
    return failed(`The row has no value for the prompt variable${rendered.missing.length > 1 ? "s" : ""} ${names}.`);
  }
  try {
    const call = await callModel(
      target,
      { messages: rendered.messages, tools, settings: config.settings },
      { ...deps.call, signal },
    );
    const cost = costOf(target, call.inputTokens, call.outputTokens) ?? 0;
    return { value: call.text, error: null, latency: call.latencyMs, cost };
  } catch (error) {
    if (error instanceof ModelCallError) return failed(error.message);
    throw error;
  }
}
