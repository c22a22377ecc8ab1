import type { ServiceContext } from "../context.ts";
import { modelsOfProvider } from "../models/list-models.ts";
import { type ProviderWithModels, requireProvider, toProvider } from "./provider.ts";

/** The provider record; its models (as `GET /models?providerId=` lists them) only when asked for. */
export async function getProvider(
  ctx: ServiceContext,
  providerId: string,
  options: { includeModels?: boolean },
): Promise<ProviderWithModels> {
  const row = await requireProvider(ctx, providerId);
  return {
    ...toProvider(row),
    availableModels: options.includeModels ? await modelsOfProvider(ctx, row) : null,
  };
}
