import { priceOf } from "../services/models/price-table.ts";
import type { ModelTarget } from "./model-target.ts";

/** USD for the call from the price table; null when the model has no price or the provider reported no usage. */
export function costOf(target: ModelTarget, inputTokens: number | null, outputTokens: number | null): number | null {
  const price = priceOf(target.provider, target.model);
  if (!price || inputTokens === null || outputTokens === null) return null;
  const usd = (inputTokens * price.inputPerMillion + outputTokens * price.outputPerMillion) / 1_000_000;
  // Whole pico-dollars: no float noise such as 0.0000013499999999999998 in results and sums.
  return Math.round(usd * 1e12) / 1e12;
}
