import type { ServiceContext } from "../context.ts";
import { fromJson } from "../json.ts";
import type { PathOf } from "../operation-input.ts";
import { type PromptDraft, requirePrompt, type StoredDraft, toDraft } from "./prompt.ts";

export async function getPromptDraft(
  ctx: ServiceContext,
  { promptId }: PathOf<"getPromptDraft">,
): Promise<PromptDraft> {
  const prompt = await requirePrompt(ctx, promptId);
  return toDraft(fromJson<StoredDraft>(prompt.draft));
}
