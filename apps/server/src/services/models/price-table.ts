/**
 * Pharos's built-in price table: the models `GET /models` lists for `openai` and `anthropic` records, and the
 * prices evaluation costs are computed with. Prices are the vendors' standard list prices in USD per million
 * tokens (no batch, cached-input or long-context rates).
 *
 * Maintained by hand. Last reviewed 2025-10 against:
 * - https://openai.com/api/pricing/ and https://platform.openai.com/docs/pricing
 * - https://www.anthropic.com/pricing#api and https://docs.claude.com/en/docs/about-claude/pricing
 * When a vendor changes a price or ships a model, change this table (and its tests).
 */
import type { ProviderKind } from "../../store/schema.ts";

export interface ModelPrice {
  inputPerMillion: number;
  outputPerMillion: number;
}

const price = (inputPerMillion: number, outputPerMillion: number): ModelPrice => ({
  inputPerMillion,
  outputPerMillion,
});

const OPENAI: Readonly<Record<string, ModelPrice>> = {
  "gpt-5": price(1.25, 10),
  "gpt-5-mini": price(0.25, 2),
  "gpt-5-nano": price(0.05, 0.4),
  "gpt-4.1": price(2, 8),
  "gpt-4.1-mini": price(0.4, 1.6),
  "gpt-4.1-nano": price(0.1, 0.4),
  "gpt-4o": price(2.5, 10),
  "gpt-4o-mini": price(0.15, 0.6),
  o1: price(15, 60),
  "o1-mini": price(1.1, 4.4),
  o3: price(2, 8),
  "o3-mini": price(1.1, 4.4),
  "o4-mini": price(1.1, 4.4),
  "gpt-4-turbo": price(10, 30),
  "gpt-3.5-turbo": price(0.5, 1.5),
};

const ANTHROPIC: Readonly<Record<string, ModelPrice>> = {
  "claude-opus-4-1": price(15, 75),
  "claude-opus-4-0": price(15, 75),
  "claude-sonnet-4-5": price(3, 15),
  "claude-sonnet-4-0": price(3, 15),
  "claude-haiku-4-5": price(1, 5),
  "claude-3-7-sonnet-latest": price(3, 15),
  "claude-3-5-sonnet-latest": price(3, 15),
  "claude-3-5-haiku-latest": price(0.8, 4),
  "claude-3-haiku-20240307": price(0.25, 1.25),
};

const TABLES: Readonly<Record<ProviderKind, Readonly<Record<string, ModelPrice>>>> = {
  openai: OPENAI,
  anthropic: ANTHROPIC,
  // Any server with any models: Pharos knows no prices for them.
  "openai-compatible": {},
};

/**
 * Anthropic's dated snapshots whose undated name is not the table's alias: `claude-sonnet-4-20250514` is
 * `claude-sonnet-4-0`, `claude-3-5-haiku-20241022` is `claude-3-5-haiku-latest`.
 */
const SNAPSHOT_ALIASES: Readonly<Record<string, string>> = {
  "claude-opus-4": "claude-opus-4-0",
  "claude-sonnet-4": "claude-sonnet-4-0",
  "claude-3-7-sonnet": "claude-3-7-sonnet-latest",
  "claude-3-5-sonnet": "claude-3-5-sonnet-latest",
  "claude-3-5-haiku": "claude-3-5-haiku-latest",
  "claude-3-haiku": "claude-3-haiku-20240307",
};

/** `-2024-08-06` (OpenAI) or `-20250514` (Anthropic) at the end of a snapshot's name. */
const SNAPSHOT_DATE = /-(?:\d{4}-\d{2}-\d{2}|\d{8})$/;

/** The models of the table for a kind, in name order. */
export function pricedModels(provider: ProviderKind): string[] {
  return Object.keys(TABLES[provider]).sort();
}

/**
 * The list price of a model: by exact name, else as the model a dated snapshot (`gpt-4o-2024-08-06`) is a
 * version of. Null for an unknown model and for every `openai-compatible` model.
 */
export function priceOf(provider: ProviderKind, model: string): ModelPrice | null {
  const table = TABLES[provider];
  if (Object.hasOwn(table, model)) return table[model] ?? null;
  if (!SNAPSHOT_DATE.test(model)) return null;
  const undated = model.replace(SNAPSHOT_DATE, "");
  const name = Object.hasOwn(table, undated) ? undated : SNAPSHOT_ALIASES[undated];
  return name !== undefined && Object.hasOwn(table, name) ? (table[name] ?? null) : null;
}
