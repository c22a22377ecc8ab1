import { inTransaction, type ServiceContext } from "../context.ts";
import { fromJson, toJson } from "../json.ts";
import type { BodyOf, PathOf, Unread } from "../operation-input.ts";
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
  { promptId }: PathOf<"updatePrompt">,
  body: BodyOf<"updatePrompt">,
): Promise<Prompt> {
  const { title, icon, config, messages, tools, ...unread } = body;
  unread satisfies Unread;
  return inTransaction(ctx, async (tx) => {
    const prompt = await requirePrompt(tx, promptId);
    const stored = fromJson<StoredDraft>(prompt.draft);
    if (messages !== undefined) assertVariableLimit(messages, "messages");
    const draft: StoredDraft = {
      config: config !== undefined ? await resolveConfig(tx, config, "config") : stored.config,
      messages: messages ?? stored.messages,
      tools: tools !== undefined ? normalizeTools(tools) : stored.tools,
    };
    const changes = {
      ...(title !== undefined && { title }),
      ...(icon !== undefined && { icon: toJson(icon) }),
      draft: toJson(draft),
      updatedAt: tx.now(),
    };
    await tx.db.updateTable("prompts").set(changes).where("id", "=", prompt.id).execute();
    return toPrompt({ ...prompt, ...changes });
  });
}
