import type { schemas } from "@pharos/contract";
import { requireProject } from "../access.ts";
import type { ServiceContext } from "../context.ts";
import { toJson } from "../json.ts";
import {
  assertVariableLimit,
  DEFAULT_PLAYGROUND_TITLE,
  DEFAULT_PROMPT_ICON,
  DEFAULT_PROMPT_TITLE,
  normalizeTools,
  type Prompt,
  resolveConfig,
  type StoredDraft,
  type StoredPlayground,
  toPrompt,
} from "./prompt.ts";

/** A new prompt and its default playground (messages copied from the initial draft), in one row. */
export async function createPrompt(ctx: ServiceContext, input: schemas.CreatePromptRequest): Promise<Prompt> {
  const project = await requireProject(ctx, input.projectId);
  const messages = input.draft?.messages ?? [];
  assertVariableLimit(messages, "draft.messages");
  const draft: StoredDraft = {
    config: await resolveConfig(ctx, input.draft?.config, "draft.config"),
    messages,
    tools: normalizeTools(input.draft?.tools ?? []),
  };
  const playground: StoredPlayground = { id: ctx.newId("playground"), title: DEFAULT_PLAYGROUND_TITLE, messages };
  const now = ctx.now();
  const row = {
    id: ctx.newId("prompt"),
    workspaceId: ctx.principal.workspaceId,
    projectId: project.id,
    title: input.title ?? DEFAULT_PROMPT_TITLE,
    icon: toJson(input.icon ?? DEFAULT_PROMPT_ICON),
    draft: toJson(draft),
    playground: toJson(playground),
    createdAt: now,
    updatedAt: now,
  };
  await ctx.db.insertInto("prompts").values(row).execute();
  return toPrompt(row);
}
