import type { schemas } from "@pharos/contract";
import { invalid } from "../../errors.ts";
import type { ServiceContext } from "../context.ts";
import type { PathOf, QueryOf, Unread } from "../operation-input.ts";
import { type Prompt, requirePrompt, toPrompt } from "./prompt.ts";

type FieldName = keyof Prompt;

/**
 * The prompt with its draft; with `expand=playground` also its default playground. `fields` reduces it to the
 * named fields plus `id`; naming `defaultPlayground` needs `expand=playground`.
 */
export async function getPrompt(
  ctx: ServiceContext,
  { promptId }: PathOf<"getPrompt">,
  query: QueryOf<"getPrompt">,
): Promise<Prompt | schemas.PromptFieldSelection> {
  // The route has checked each field name.
  const { fields: fieldList, expand, ...unread } = query;
  unread satisfies Unread;
  const fields = fieldList === undefined ? undefined : new Set(fieldList.split(",") as FieldName[]);
  const playground = expand === "playground";
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
