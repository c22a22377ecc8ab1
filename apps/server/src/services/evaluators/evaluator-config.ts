/**
 * Save-time rules of evaluator configs beyond the schema (each a 400), and the normal form stored and returned:
 * `group` and the defaulted optional fields always filled in. (A `group` that does not match its type is
 * already refused by the schema: each variant's `group` is a one-value enum.)
 */
import type { schemas } from "@pharos/contract";
import { invalid } from "../../errors.ts";
import type { ServiceContext } from "../context.ts";
import { requireProvider } from "../providers/provider.ts";

type Config = schemas.EvaluatorConfig;

const ARRAY_OPERATORS = new Set(["contains-any", "contains-all", "not-contains-any"]);
const PLACEHOLDER = /\{\{[A-Za-z0-9_-]{1,64}\}\}/;

// The constructor of async functions: compiling user code checks its syntax without running it.
const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...args: string[]) => unknown;

function check(config: Config): void {
  switch (config.type) {
    case "text-matcher": {
      const wantsArray = ARRAY_OPERATORS.has(config.operator);
      if (wantsArray !== Array.isArray(config.value)) {
        throw invalid(
          "config.value",
          `operator ${config.operator} takes ${wantsArray ? "an array of strings" : "one string"}`,
        );
      }
      if (config.operator === "regex" && typeof config.value === "string") {
        try {
          new RegExp(
            config.value.replace(new RegExp(PLACEHOLDER, "g"), "x"),
            config.caseSensitive === false ? "i" : "",
          );
        } catch (error) {
          throw invalid("config.value", `is not a valid regular expression: ${(error as Error).message}`);
        }
      }
      return;
    }
    case "json": {
      if ((config.mode === "exact-match") !== (config.expected !== undefined)) {
        throw invalid("config.expected", "is required with mode exact-match and not allowed with other modes");
      }
      if ((config.mode === "schema") !== (config.schema !== undefined)) {
        throw invalid("config.schema", "is required with mode schema and not allowed with other modes");
      }
      if (config.expected !== undefined && !PLACEHOLDER.test(config.expected)) {
        try {
          JSON.parse(config.expected);
        } catch {
          throw invalid("config.expected", "must be a JSON document");
        }
      }
      return;
    }
    case "javascript":
      try {
        new AsyncFunction("data", config.code);
      } catch (error) {
        throw invalid("config.code", `does not compile: ${(error as Error).message}`);
      }
      return;
    default:
      return;
  }
}

/** Validates a config and returns its normal form. */
export function normalizeEvaluatorConfig(config: Config): Config {
  check(config);
  switch (config.type) {
    case "llm-as-a-judge":
      return { ...config, group: "ai-powered", judgeModel: config.judgeModel ?? null };
    case "text-matcher":
      return { ...config, group: "code", caseSensitive: config.caseSensitive ?? true };
    case "javascript":
      return { ...config, group: "code", timeoutMs: config.timeoutMs ?? 5000 };
    case "json":
      return { ...config, group: "code" };
    default:
      return { ...config, group: "performance" } as Config;
  }
}

/** A judge model's `providerId` must name a provider record of the workspace (404 otherwise). */
export async function requireJudgeProvider(ctx: ServiceContext, config: Config): Promise<void> {
  const providerId = config.type === "llm-as-a-judge" ? config.judgeModel?.providerId : undefined;
  if (providerId !== undefined) await requireProvider(ctx, providerId);
}
