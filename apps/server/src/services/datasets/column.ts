/** Dataset columns: the response shape, settings of each type and the rules every write of a column checks. */
import type { schemas } from "@pharos/contract";
import type { Selectable } from "kysely";
import { conflict, type ErrorDetail, failIfInvalid, notFound } from "../../errors.ts";
import type { SecretBox } from "../../secrets/secret-box.ts";
import type { Database } from "../../store/schema.ts";
import type { ServiceContext } from "../context.ts";
import { requireDeploymentOfPrompt } from "../deployments/deployment.ts";
import { fromJson, toJson } from "../json.ts";
import { requirePromptsOfProject } from "../prompts/prompt.ts";

export type DatasetColumn = schemas.DatasetColumn;
/** A stored column (`position` read back, not generated). */
export type ColumnRow = Selectable<Database["datasetColumns"]>;
export type ColumnType = Database["datasetColumns"]["type"];
type ColumnSettingsInput = NonNullable<schemas.UpdateDatasetColumnRequest["settings"]>;
/** An api column's settings as stored: the returned ones plus the secret headers' values, sealed (JSON of a map). */
export type StoredApiSettings = schemas.ApiColumnSettings & { sealedHeaders?: string };
type StoredSettings = schemas.StaticColumnSettings | schemas.PromptColumnSettings | StoredApiSettings;

/** A dataset holds at most this many columns. */
export const MAX_COLUMNS = 100;

export function toColumn(row: ColumnRow): DatasetColumn {
  const base = { id: row.id, name: row.name };
  const times = { createdAt: row.createdAt, updatedAt: row.updatedAt };
  switch (row.type) {
    case "static":
      return { ...base, type: "static", settings: {}, ...times };
    case "prompt":
      return { ...base, type: "prompt", settings: fromJson<schemas.PromptColumnSettings>(row.settings), ...times };
    case "api": {
      // The sealed values of the secret headers stay in storage: only their names are returned.
      const { sealedHeaders, ...settings } = fromJson<StoredApiSettings>(row.settings);
      return { ...base, type: "api", settings, ...times };
    }
  }
}

/** The dataset's columns in creation order. */
export function loadColumns(ctx: ServiceContext, datasetId: string) {
  return ctx.db
    .selectFrom("datasetColumns")
    .selectAll()
    .where("datasetId", "=", datasetId)
    .orderBy("position", "asc")
    .orderBy("id", "asc")
    .execute();
}

/** The column, if it belongs to the dataset (a column of another dataset is missing: 404). */
export async function requireColumn(ctx: ServiceContext, datasetId: string, columnId: string) {
  const column = await ctx.db
    .selectFrom("datasetColumns")
    .selectAll()
    .where("id", "=", columnId)
    .where("datasetId", "=", datasetId)
    .executeTakeFirst();
  if (!column) throw notFound("Column");
  return column;
}

/** The type whose settings shape `settings` has (the request's union admits exactly one). */
export function settingsType(settings: ColumnSettingsInput): ColumnType {
  if ("promptId" in settings) return "prompt";
  if ("method" in settings) return "api";
  return "static";
}

/**
 * Rules of the settings beyond their schema, as details under `field`: an `api` URL is an absolute http(s)
 * URL (placeholders allowed), and a `GET` sends no body.
 */
export function settingsProblems(settings: ColumnSettingsInput | undefined, field: string): ErrorDetail[] {
  if (settings === undefined || !("method" in settings)) return [];
  const problems: ErrorDetail[] = [];
  if (!/^https?:\/\/[^/\s]/i.test(settings.url)) {
    problems.push({ field: `${field}.url`, issue: "must be an absolute http(s) URL" });
  }
  if (settings.method === "GET" && settings.body !== undefined) {
    problems.push({ field: `${field}.body`, issue: "a GET request has no body; use method POST to send one" });
  }
  const plain = new Set(Object.keys(settings.headers ?? {}).map((name) => name.toLowerCase()));
  for (const name of Object.keys(settings.secretHeaders ?? {})) {
    if (plain.has(name.toLowerCase())) {
      problems.push({ field: `${field}.secretHeaders.${name}`, issue: "is also one of `headers`; name it once" });
    }
  }
  return problems;
}

/**
 * The settings as stored: every returned field of the type present (`headers` `{}`, `body` `null`), and an api
 * column's secret headers sealed with `secrets`, their names beside them.
 */
function normalizeSettings(
  type: ColumnType,
  settings: ColumnSettingsInput | undefined,
  secrets: SecretBox,
): StoredSettings {
  if (type === "prompt" && settings && "promptId" in settings) {
    const { promptId, deploymentId } = settings;
    return deploymentId === undefined ? { promptId } : { promptId, deploymentId };
  }
  if (type === "api" && settings && "method" in settings) {
    const { method, url, headers = {}, body = null, secretHeaders = {} } = settings;
    const names = Object.keys(secretHeaders);
    if (names.length === 0) return { method, url, headers, body };
    return { method, url, headers, secretHeaderNames: names, body, sealedHeaders: secrets.seal(toJson(secretHeaders)) };
  }
  return {};
}

export const storeSettings = (type: ColumnType, settings: ColumnSettingsInput | undefined, secrets: SecretBox) =>
  toJson(normalizeSettings(type, settings, secrets));

/**
 * New columns, checked and ready to insert after `existing`: names unique within the request (400) and not
 * used by an existing column (409), at most MAX_COLUMNS in all (400), settings rules (400), prompts of the
 * project (404). Pure checks come first, so nothing is read for a request that is malformed anyway.
 */
export async function prepareColumns(
  ctx: ServiceContext,
  options: {
    datasetId: string;
    projectId: string;
    existing: readonly ColumnRow[];
    inputs: readonly schemas.DatasetColumnInput[];
    now: number;
  },
): Promise<ColumnRow[]> {
  const { existing, inputs, now } = options;
  const problems: ErrorDetail[] = [];
  const seen = new Set<string>();
  inputs.forEach((input, index) => {
    if (seen.has(input.name)) {
      problems.push({ field: `columns.${index}.name`, issue: `"${input.name}" is repeated in the request` });
    }
    seen.add(input.name);
    problems.push(...settingsProblems(input.settings, `columns.${index}.settings`));
  });
  if (existing.length + inputs.length > MAX_COLUMNS) {
    problems.push({
      field: "columns",
      issue: `a dataset holds at most ${MAX_COLUMNS} columns (it has ${existing.length}, the request adds ${inputs.length})`,
    });
  }
  failIfInvalid(problems);

  const taken = inputs.find((input) => existing.some((column) => column.name === input.name));
  if (taken) throw conflict(`The dataset already has a column named "${taken.name}".`);

  await requirePromptColumnSources(
    ctx,
    options.projectId,
    inputs.flatMap((input) => (input.type === "prompt" ? [input.settings] : [])),
  );

  let position = existing.reduce((max, column) => Math.max(max, column.position), -1);
  return inputs.map((input) => ({
    id: ctx.newId("column"),
    datasetId: options.datasetId,
    name: input.name,
    type: input.type,
    settings: storeSettings(input.type, input.settings, ctx.secrets),
    position: ++position,
    createdAt: now,
    updatedAt: now,
  }));
}

/** Prompt columns' prompts are of the project, and their deployments of those prompts (404 otherwise). */
export async function requirePromptColumnSources(
  ctx: ServiceContext,
  projectId: string,
  settings: readonly schemas.PromptColumnSettings[],
): Promise<void> {
  await requirePromptsOfProject(
    ctx,
    projectId,
    settings.map(({ promptId }) => promptId),
  );
  for (const { promptId, deploymentId } of settings) {
    if (deploymentId !== undefined) await requireDeploymentOfPrompt(ctx, promptId, deploymentId);
  }
}

/** Inserts prepared columns; a name taken meanwhile is the same 409 as one taken before. */
export async function insertColumns(ctx: ServiceContext, columns: ColumnRow[]): Promise<void> {
  if (columns.length === 0) return;
  try {
    await ctx.db.insertInto("datasetColumns").values(columns).execute();
  } catch (error) {
    if (ctx.store.isUniqueViolation(error)) throw conflict("A column name is already used.");
    throw error;
  }
}
