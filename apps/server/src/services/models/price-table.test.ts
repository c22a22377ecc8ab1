import { describe, expect, it } from "vitest";
import { pricedModels, priceOf } from "./price-table.ts";

describe("priceOf", () => {
  it("prices the table's models by exact name", () => {
    expect(priceOf("openai", "gpt-4o")).toEqual({ inputPerMillion: 2.5, outputPerMillion: 10 });
    expect(priceOf("openai", "gpt-4o-mini")).toEqual({ inputPerMillion: 0.15, outputPerMillion: 0.6 });
    expect(priceOf("openai", "o1")).toEqual({ inputPerMillion: 15, outputPerMillion: 60 });
    expect(priceOf("anthropic", "claude-sonnet-4-5")).toEqual({ inputPerMillion: 3, outputPerMillion: 15 });
    expect(priceOf("anthropic", "claude-3-haiku-20240307")).toEqual({ inputPerMillion: 0.25, outputPerMillion: 1.25 });
  });

  it("prices a dated snapshot as the model it is a version of", () => {
    expect(priceOf("openai", "gpt-4o-2024-08-06")).toEqual(priceOf("openai", "gpt-4o"));
    expect(priceOf("openai", "gpt-4.1-mini-2025-04-14")).toEqual(priceOf("openai", "gpt-4.1-mini"));
    expect(priceOf("anthropic", "claude-sonnet-4-5-20250929")).toEqual(priceOf("anthropic", "claude-sonnet-4-5"));
    expect(priceOf("anthropic", "claude-opus-4-1-20250805")).toEqual(priceOf("anthropic", "claude-opus-4-1"));
  });

  it("prices Anthropic snapshots whose undated name is an alias of the table's entry", () => {
    expect(priceOf("anthropic", "claude-sonnet-4-20250514")).toEqual(priceOf("anthropic", "claude-sonnet-4-0"));
    expect(priceOf("anthropic", "claude-opus-4-20250514")).toEqual(priceOf("anthropic", "claude-opus-4-0"));
    expect(priceOf("anthropic", "claude-3-5-haiku-20241022")).toEqual({ inputPerMillion: 0.8, outputPerMillion: 4 });
    expect(priceOf("anthropic", "claude-3-7-sonnet-20250219")).toEqual(
      priceOf("anthropic", "claude-3-7-sonnet-latest"),
    );
  });

  it("has no price for unknown models, other kinds' models, non-date suffixes and openai-compatible", () => {
    expect(priceOf("openai", "gpt-7")).toBeNull();
    expect(priceOf("openai", "claude-sonnet-4-5")).toBeNull();
    expect(priceOf("anthropic", "gpt-4o")).toBeNull();
    expect(priceOf("openai", "gpt-4o-preview")).toBeNull();
    expect(priceOf("openai", "gpt-4o-2024-08")).toBeNull();
    expect(priceOf("openai", "toString")).toBeNull();
    expect(priceOf("openai", "gpt-4-2024-08-06")).toBeNull();
    expect(priceOf("openai-compatible", "gpt-4o")).toBeNull();
    expect(priceOf("openai-compatible", "llama3.1:8b")).toBeNull();
  });
});

describe("pricedModels", () => {
  it("lists every model of the kind, in name order, each with a price", () => {
    const openai = pricedModels("openai");
    expect(openai).toEqual([...openai].sort());
    expect(openai).toEqual(
      expect.arrayContaining(["gpt-4o", "gpt-4.1-nano", "o3-mini", "o4-mini", "gpt-3.5-turbo", "gpt-5-nano"]),
    );
    expect(openai).toHaveLength(15);
    expect(pricedModels("anthropic")).toHaveLength(9);
    for (const kind of ["openai", "anthropic"] as const) {
      for (const model of pricedModels(kind)) expect(priceOf(kind, model), model).not.toBeNull();
    }
    expect(pricedModels("openai-compatible")).toEqual([]);
  });
});
