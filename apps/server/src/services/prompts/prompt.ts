/**
 * The prompt record: its stored form (a `prompts` row whose draft and default playground are JSON without
 * variables, which are derived on read), the API shapes built from it, and the lookup every prompt-scoped
 * operation starts with.
 */
import type { schemas } from "@pharos/contract";
import { invalid, notFound } from "../../errors.ts";
import type { Database } from "../../store/schema.ts";
import type { ServiceContext } from "../context.ts";
import { fromJson } from "../json.ts";
import { assertProjectAccess } from "../projects/project.ts";
import { requireProvider } from "../providers/provider.ts";
import { MAX_VARIABLES, variableList, variableMap } from "./template-variables.ts";

export type Prompt = schemas.Prompt;
export type PromptSummary = schemas.PromptSummary;
export type PromptDraft = schemas.PromptDraft;
export type PromptPlayground = schemas.PromptPlayground;
export type Icon = schemas.Icon;
type Message = schemas.PromptMessage;
type Tool = schemas.PromptTool;

export type PromptRow = Database["prompts"];

/** The draft as stored: variables are derived from the messages whenever the draft is read. */
export interface StoredDraft {
  config: schemas.PromptConfig;
  messages: Message[];
  tools: Tool[];
}

/** The default playground as stored. */
export interface StoredPlayground {
  id: string;
  title: string;
  messages: Message[];
}

export const DEFAULT_PROMPT_TITLE = "Untitled prompt";
export const DEFAULT_PROMPT_ICON: Icon = { type: "emoji", value: "📝" };
export const DEFAULT_PLAYGROUND_TITLE = "Playground";

/** The prompt row, if it is in the caller's workspace (else 404) and the key may use its project (else 403). */
export async function requirePrompt(ctx: ServiceContext, promptId: string): Promise<PromptRow> {
  const prompt = await ctx.db
    .selectFrom("prompts")
    .selectAll()
    .where("id", "=", promptId)
    .where("workspaceId", "=", ctx.principal.workspaceId)
    .executeTakeFirst();
  if (!prompt) throw notFound("Prompt");
  assertProjectAccess(ctx, prompt.projectId);
  return prompt;
}

/** Every prompt id must name a prompt of the project (404 otherwise). */
export async function requirePromptsOfProject(
  ctx: ServiceContext,
  projectId: string,
  promptIds: readonly string[],
): Promise<void> {
  const wanted = [...new Set(promptIds)];
  if (wanted.length === 0) return;
  const found = await ctx.db
    .selectFrom("prompts")
    .select("id")
    .where("projectId", "=", projectId)
    .where("workspaceId", "=", ctx.principal.workspaceId)
    .where("id", "in", wanted)
    .execute();
  const known = new Set(found.map((row) => row.id));
  const missing = wanted.find((id) => !known.has(id));
  if (missing !== undefined) {
    throw notFound(`Prompt ${missing} of the project`);
  }
}

/**
 * A configuration as sent (PromptConfigInput) → as stored: it replaces the stored one as a whole, an omitted
 * or null key is null and omitted settings are `{}`. A `providerId` must name a provider record of the
 * workspace (404); the record decides `provider`, so a different `provider` is 400 rather than a config that
 * says one kind and runs on another. `field` is where the config sits in the request, for error details.
 */
export async function resolveConfig(
  ctx: ServiceContext,
  input: schemas.PromptConfigInput | undefined,
  field: string,
): Promise<schemas.PromptConfig> {
  const providerId = input?.providerId ?? null;
  let provider = input?.provider ?? null;
  if (providerId !== null) {
    const record = await requireProvider(ctx, providerId);
    if (provider !== null && provider !== record.provider) {
      throw invalid(
        `${field}.provider`,
        `must be "${record.provider}", the kind of provider record ${providerId}, or be left out`,
      );
    }
    provider = record.provider;
  }
  return { provider, providerId, model: input?.model ?? null, settings: input?.settings ?? {} };
}

/** Tools as stored and returned: `request` may be omitted on input and is always present (or null) after. */
export const normalizeTools = (tools: readonly Tool[]): Tool[] =>
  tools.map((tool) => ({ type: tool.type, definition: tool.definition, request: tool.request ?? null }));

/** Messages must not define more variables than a prompt may have. */
export function assertVariableLimit(messages: readonly Message[], field: string): void {
  const count = variableList(messages).length;
  if (count > MAX_VARIABLES) {
    throw invalid(
      field,
      `the messages use ${count} distinct {{variables}}; a prompt may have at most ${MAX_VARIABLES}`,
    );
  }
}

export function toDraft(stored: StoredDraft): PromptDraft {
  return {
    config: stored.config,
    messages: stored.messages,
    tools: stored.tools,
    variables: variableMap(stored.messages),
  };
}

export function toPlayground(stored: StoredPlayground): PromptPlayground {
  return { id: stored.id, title: stored.title, messages: stored.messages, variables: variableMap(stored.messages) };
}

export function toPromptSummary(row: PromptRow): PromptSummary {
  return {
    id: row.id,
    title: row.title,
    icon: fromJson<Icon>(row.icon),
    projectId: row.projectId,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** The full prompt; `defaultPlayground` only when asked for (`expand=playground`). */
export function toPrompt(row: PromptRow, options: { playground?: boolean } = {}): Prompt {
  const playground = fromJson<StoredPlayground>(row.playground);
  return {
    ...toPromptSummary(row),
    defaultPlaygroundId: playground.id,
    draft: toDraft(fromJson<StoredDraft>(row.draft)),
    contentLinks: {},
    ...(options.playground && { defaultPlayground: toPlayground(playground) }),
  };
}
