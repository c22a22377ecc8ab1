import type { ServiceContext } from "../context.ts";
import { toJson } from "../json.ts";
import type { BodyOf, Unread } from "../operation-input.ts";
import { requireProject } from "../projects/project.ts";
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
export async function createPrompt(ctx: ServiceContext, body: BodyOf<"createPrompt">): Promise<Prompt> {
  const { projectId, title, icon, draft: initial, ...unread } = body;
  unread satisfies Unread;
  const project = await requireProject(ctx, projectId);
  const messages = initial?.messages ?? [];
  assertVariableLimit(messages, "draft.messages");
  const draft: StoredDraft = {
    config: await resolveConfig(ctx, initial?.config, "draft.config"),
    messages,
    tools: normalizeTools(initial?.tools ?? []),
  };
  const playground: StoredPlayground = { id: ctx.newId("playground"), title: DEFAULT_PLAYGROUND_TITLE, messages };
  const now = ctx.now();
  const row = {
    id: ctx.newId("prompt"),
    workspaceId: ctx.principal.workspaceId,
    projectId: project.id,
    title: title ?? DEFAULT_PROMPT_TITLE,
    icon: toJson(icon ?? DEFAULT_PROMPT_ICON),
    draft: toJson(draft),
    playground: toJson(playground),
    createdAt: now,
    updatedAt: now,
  };
  await ctx.db.insertInto("prompts").values(row).execute();
  return toPrompt(row);
}
