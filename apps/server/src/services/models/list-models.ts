/**
 * The models callable through the workspace's provider records: the price table's models for `openai` and
 * `anthropic` records, and whatever an `openai-compatible` server lists at `GET {baseUrl}/models`. A server
 * that cannot be reached, or answers something else than an OpenAI model list, contributes no models: one
 * local server being down must not break the list of all the others.
 */
import type { schemas } from "@pharos/contract";
import type { ServiceContext } from "../context.ts";
import type { QueryOf, Unread } from "../operation-input.ts";
import { openCredentials, type ProviderRow, requireProvider } from "../providers/provider.ts";
import { pricedModels, priceOf } from "./price-table.ts";

export type Model = schemas.Model;

/** How long an `openai-compatible` server may take to list its models. */
const LIST_TIMEOUT_MS = 3000;
/** Model.model's length limit in the spec; longer names from a server are left out. */
const MAX_MODEL_NAME = 200;
/** ModelList.models' size limit in the spec. */
const MAX_MODELS = 5000;

/** GET /models: every record's models (or one record's), by record creation then model name. */
export async function listModels(ctx: ServiceContext, query: QueryOf<"listModels">): Promise<Model[]> {
  const { providerId, ...unread } = query;
  unread satisfies Unread;
  const records =
    providerId !== undefined
      ? [await requireProvider(ctx, providerId)]
      : await ctx.db
          .selectFrom("providers")
          .selectAll()
          .where("workspaceId", "=", ctx.principal.workspaceId)
          .orderBy("createdAt", "asc")
          .orderBy("id", "asc")
          .execute();
  const perRecord = await Promise.all(records.map((record) => modelsOfProvider(ctx, record)));
  return perRecord.flat().slice(0, MAX_MODELS);
}

/** One record's models, in name order. */
export async function modelsOfProvider(ctx: ServiceContext, record: ProviderRow): Promise<Model[]> {
  if (record.provider === "openai-compatible") {
    const names = await listServerModels(ctx, record);
    return names.map((name) => toModel(record, name, true));
  }
  const enabled = record.credentials !== null;
  return pricedModels(record.provider).map((name) => toModel(record, name, enabled));
}

function toModel(record: ProviderRow, model: string, enabled: boolean): Model {
  const price = priceOf(record.provider, model);
  return {
    id: `${record.id}:${model}`,
    providerId: record.id,
    provider: record.provider,
    model,
    enabled,
    inputPricePerMillionTokens: price?.inputPerMillion ?? null,
    outputPricePerMillionTokens: price?.outputPerMillion ?? null,
  };
}

/**
 * The model names an OpenAI-compatible server lists (`{data: [{id}]}`), sorted; [] when it cannot say, whatever
 * the reason (unreachable, another answer, credentials that cannot be opened or sent).
 */
async function listServerModels(ctx: ServiceContext, record: ProviderRow): Promise<string[]> {
  if (record.baseUrl === null) return [];
  let body: unknown;
  try {
    const headers = new Headers({ Accept: "application/json" });
    if (record.credentials !== null) {
      const credentials = openCredentials(ctx.secrets, record.credentials);
      for (const [name, value] of Object.entries(credentials.headers ?? {})) headers.set(name, value);
      headers.set("Authorization", `Bearer ${credentials.apiKey}`);
    }
    const response = await fetch(`${record.baseUrl.replace(/\/+$/, "")}/models`, {
      headers,
      signal: AbortSignal.timeout(LIST_TIMEOUT_MS),
    });
    if (!response.ok) {
      await response.body?.cancel();
      return [];
    }
    body = await response.json();
  } catch {
    return [];
  }
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return [];
  const names = new Set<string>();
  for (const entry of data) {
    const id = (entry as { id?: unknown } | null)?.id;
    if (typeof id === "string" && id.length > 0 && id.length <= MAX_MODEL_NAME) names.add(id);
  }
  return [...names].sort();
}
