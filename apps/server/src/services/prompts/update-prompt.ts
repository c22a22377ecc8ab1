import type { schemas } from "@pharos/contract";
import { inTransaction, type ServiceContext } from "../context.ts";
import { fromJson, toJson } from "../json.ts";
import {
  assertVariableLimit,
  normalizeTools,
  type Prompt,
  requirePrompt,
  resolveConfig,
  type StoredDraft,
  toPrompt,
} from "./prompt.ts";

/**
 * PATCH: `title` and `icon` change the prompt; `config`, `messages` and `tools` each replace that part of the
 * draft; omitted fields are kept. Deployments are snapshots and stay as they were; the playground never changes.
 */
export function updatePrompt(
  ctx: ServiceContext,
  promptId: string,
  input: schemas.UpdatePromptRequest,
): Promise<Prompt> {
  return inTransaction(ctx, async (tx) => {
    const prompt = await requirePrompt(tx, promptId);
    const stored = fromJson<StoredDraft>(prompt.draft);
    if (input.messages !== undefined) assertVariableLimit(input.messages, "messages");
    const draft: StoredDraft = {
      config: input.config !== undefined ? await resolveConfig(tx, input.config, "config") : stored.config,
      messages: input.messages ?? stored.messages,
      tools: input.tools !== undefined ? normalizeTools(input.tools) : stored.tools,
    };
    const changes = {
      ...(input.title !== undefined && { title: input.title }),
      ...(input.icon !== undefined && { icon: toJson(input.icon) }),
      draft: toJson(draft),
      updatedAt: tx.now(),
    };
    await tx.db.updateTable("prompts").set(changes).where("id", "=", prompt.id).execute();
    return toPrompt({ ...prompt, ...changes });
  });
}
