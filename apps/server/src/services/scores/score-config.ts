import type { schemas } from "@pharos/contract";
import { invalid, notFound } from "../../errors.ts";
import type { Database } from "../../store/schema.ts";
import type { ServiceContext } from "../context.ts";
import { fromJson, toJson } from "../json.ts";
import { requireProject } from "../projects/project.ts";

export type ScoreConfig = schemas.ScoreConfig;
export type ScoreRule = schemas.ScoreRule;

type RuleColumns = Pick<Database["scoreConfigs"], "dataType" | "minValue" | "maxValue" | "categories">;

export function toScoreConfig(row: Database["scoreConfigs"]): ScoreConfig {
  return {
    id: row.id,
    projectId: row.projectId,
    name: row.name,
    description: row.description,
    rule: ruleOf(row),
    createdAt: Number(row.createdAt),
    updatedAt: Number(row.updatedAt),
  };
}

function ruleOf(row: RuleColumns): ScoreRule {
  if (row.dataType === "numeric") {
    const bound = (value: number | null) => (value === null ? null : Number(value));
    return { type: "numeric", min: bound(row.minValue), max: bound(row.maxValue) };
  }
  if (row.dataType === "categorical") return { type: "categorical", categories: fromJson(row.categories ?? "[]") };
  return { type: "boolean" };
}

/** The columns that store `rule`; a numeric rule whose `min` exceeds its `max`, or a repeated category, is 400. */
export function ruleColumns(rule: ScoreRule): RuleColumns {
  const none = { minValue: null, maxValue: null, categories: null };
  if (rule.type === "numeric") {
    const minValue = rule.min ?? null;
    const maxValue = rule.max ?? null;
    if (minValue !== null && maxValue !== null && minValue > maxValue)
      throw invalid("rule.max", `must be at least rule.min (${minValue})`);
    return { ...none, dataType: "numeric", minValue, maxValue };
  }
  if (rule.type === "categorical") {
    const repeated = rule.categories.find((category, index) => rule.categories.indexOf(category) !== index);
    if (repeated !== undefined) throw invalid("rule.categories", `lists "${repeated}" more than once`);
    return { ...none, dataType: "categorical", categories: toJson(rule.categories) };
  }
  return { ...none, dataType: "boolean" };
}

/** The score config, which must belong to the project (the caller may use). */
export async function requireScoreConfig(ctx: ServiceContext, projectId: string, scoreConfigId: string) {
  await requireProject(ctx, projectId);
  const config = await ctx.db
    .selectFrom("scoreConfigs")
    .selectAll()
    .where("id", "=", scoreConfigId)
    .where("projectId", "=", projectId)
    .executeTakeFirst();
  if (!config) throw notFound("Score config");
  return config;
}
