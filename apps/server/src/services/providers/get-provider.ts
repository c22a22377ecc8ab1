import type { ServiceContext } from "../context.ts";
import { modelsOfProvider } from "../models/list-models.ts";
import type { PathOf, QueryOf, Unread } from "../operation-input.ts";
import { type ProviderWithModels, requireProvider, toProvider } from "./provider.ts";

/** The provider record; its models (as `GET /models?providerId=` lists them) only when asked for. */
export async function getProvider(
  ctx: ServiceContext,
  { providerId }: PathOf<"getProvider">,
  query: QueryOf<"getProvider">,
): Promise<ProviderWithModels> {
  const { includeModels, ...unread } = query;
  unread satisfies Unread;
  const row = await requireProvider(ctx, providerId);
  return {
    ...toProvider(row),
    availableModels: includeModels ? await modelsOfProvider(ctx, row) : null,
  };
}
