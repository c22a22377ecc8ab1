import { conflict } from "../../errors.ts";
import { inTransaction, type ServiceContext } from "../context.ts";
import { fromJson } from "../json.ts";
import type { PathOf } from "../operation-input.ts";
import { requirePrompt } from "./prompt.ts";

/**
 * Deletes the prompt with its draft and default playground (both stored in its row); its deployments and
 * evaluators go with it through ON DELETE CASCADE. Logs keep the deleted promptId. Refused (409) while a
 * `prompt` column of a dataset refers to the prompt.
 */
export function deletePrompt(ctx: ServiceContext, { promptId }: PathOf<"deletePrompt">): Promise<void> {
  return inTransaction(ctx, async (tx) => {
    const prompt = await requirePrompt(tx, promptId);
    const referring = await promptColumnsReferring(tx, prompt.id);
    if (referring.length > 0) {
      const names = referring.map((column) => `"${column.name}" of dataset ${column.datasetId}`).join(", ");
      throw conflict(`The prompt is used by dataset column ${names}; delete or change the column first.`);
    }
    await tx.db.deleteFrom("prompts").where("id", "=", prompt.id).execute();
  });
}

/**
 * `prompt` columns of the workspace's datasets whose settings name `promptId`. Settings are JSON text on
 * both databases, so a LIKE on the id narrows the rows (`_` in ids only widens the match) and the parsed
 * settings decide.
 */
async function promptColumnsReferring(ctx: ServiceContext, promptId: string) {
  const candidates = await ctx.db
    .selectFrom("datasetColumns")
    .innerJoin("datasets", "datasets.id", "datasetColumns.datasetId")
    .select(["datasetColumns.name", "datasetColumns.datasetId", "datasetColumns.settings"])
    .where("datasets.workspaceId", "=", ctx.principal.workspaceId)
    .where("datasetColumns.type", "=", "prompt")
    .where("datasetColumns.settings", "like", `%${promptId}%`)
    .execute();
  return candidates.filter((column) => fromJson<{ promptId?: unknown }>(column.settings).promptId === promptId);
}
