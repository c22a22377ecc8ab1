import type { schemas } from "@pharos/contract";
import { type JSONSchema7, jsonSchema, type ToolSet, tool } from "ai";

const NO_PARAMETERS: JSONSchema7 = { type: "object", properties: {} };

/**
 * The prompt's function tools, declared without `execute`: the model may answer with tool calls, which are
 * returned to the caller instead of being run.
 */
export function toToolSet(tools: schemas.PromptTool[]): ToolSet | undefined {
  if (tools.length === 0) return undefined;
  const set: ToolSet = {};
  for (const { definition } of tools) {
    const { name, description, parameters, strict } = definition.schema;
    set[name] = tool({
      description,
      inputSchema: jsonSchema(parameters === undefined ? NO_PARAMETERS : (parameters as JSONSchema7)),
      ...(strict !== undefined && { strict }),
    });
  }
  return set;
}
