import type { schemas } from "@pharos/contract";
import { invalid } from "../../errors.ts";
import type { ServiceContext } from "../context.ts";
import { type Prompt, requirePrompt, toPrompt } from "./prompt.ts";

export interface GetPromptInput {
  expand?: "playground";
  /** Comma-separated top-level field names (the route has checked each name). */
  fields?: string;
}

type FieldName = keyof Prompt;

/**
 * The prompt with its draft; with `expand=playground` also its default playground. `fields` reduces it to the
 * named fields plus `id`; naming `defaultPlayground` needs `expand=playground`.
 */
export async function getPrompt(
  ctx: ServiceContext,
  promptId: string,
  input: GetPromptInput,
): Promise<Prompt | schemas.PromptFieldSelection> {
  const fields = input.fields === undefined ? undefined : new Set(input.fields.split(",") as FieldName[]);
  const playground = input.expand === "playground";
  if (fields?.has("defaultPlayground") && !playground) {
    throw invalid("query.fields", "defaultPlayground can only be selected together with expand=playground");
  }
  const prompt = toPrompt(await requirePrompt(ctx, promptId), { playground });
  if (fields === undefined) return prompt;
  const selection: Record<string, unknown> = { id: prompt.id };
  for (const field of fields) {
    if (prompt[field] !== undefined) selection[field] = prompt[field];
  }
  return selection as schemas.PromptFieldSelection;
}
