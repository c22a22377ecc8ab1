/**
 * Which provider record and model a prompt configuration (or a judge model) runs on, with the record's
 * credentials opened. The evaluation worker calls this for every row, so a record deleted or changed during a
 * run takes effect at once; every way the choice can be unusable is a one-line reason, not an exception.
 */
import type { Kysely } from "kysely";
import type { ModelTarget } from "../../llm/model-target.ts";
import type { SecretBox } from "../../secrets/secret-box.ts";
import type { Database } from "../../store/schema.ts";
import { isProviderKind, openCredentials, PROVIDER_KINDS, type ProviderRow } from "./provider.ts";

export interface ModelChoice {
  providerId: string | null;
  provider: string | null;
  model: string | null;
}

/** The provider record a prompt config (or judge model) names: by providerId, else the workspace's oldest record of kind `provider`. */
export async function resolveModelTarget(
  db: Kysely<Database>,
  secrets: SecretBox,
  workspaceId: string,
  choice: ModelChoice,
): Promise<{ target: ModelTarget; providerId: string } | { error: string }> {
  const found = await findRecord(db, workspaceId, choice);
  if ("error" in found) return found;
  const { record } = found;
  if (choice.model === null) return { error: "no model is configured: set the prompt's config.model" };

  let apiKey: string | null = null;
  let headers: Record<string, string> = {};
  if (record.credentials !== null) {
    try {
      const credentials = openCredentials(secrets, record.credentials);
      apiKey = credentials.apiKey;
      headers = credentials.headers ?? {};
    } catch {
      return { error: `the credentials of provider record ${record.id} cannot be decrypted with this secret key` };
    }
  } else if (record.provider !== "openai-compatible") {
    // OpenAI and Anthropic refuse every call without a key: say so instead of sending a doomed request.
    return {
      error: `provider record ${record.id} ("${record.displayName}") has no credentials: add them with PATCH /providers/${record.id}`,
    };
  }
  return {
    target: { provider: record.provider, baseUrl: record.baseUrl, apiKey, headers, model: choice.model },
    providerId: record.id,
  };
}

async function findRecord(
  db: Kysely<Database>,
  workspaceId: string,
  choice: ModelChoice,
): Promise<{ record: ProviderRow } | { error: string }> {
  const inWorkspace = db.selectFrom("providers").selectAll().where("workspaceId", "=", workspaceId);
  if (choice.providerId !== null) {
    const record = await inWorkspace.where("id", "=", choice.providerId).executeTakeFirst();
    return record ? { record } : { error: `provider record ${choice.providerId} does not exist (deleted?)` };
  }
  if (choice.provider === null) {
    return { error: "no provider is configured: set the prompt's config.provider or config.providerId" };
  }
  if (!isProviderKind(choice.provider)) {
    return {
      error: `Pharos cannot call provider "${choice.provider}": it calls only ${PROVIDER_KINDS.join(", ")} (set config.provider to one of them)`,
    };
  }
  const record = await inWorkspace
    .where("provider", "=", choice.provider)
    .orderBy("createdAt", "asc")
    .orderBy("id", "asc")
    .limit(1)
    .executeTakeFirst();
  return record
    ? { record }
    : { error: `no provider record of kind "${choice.provider}" in the workspace: create one with POST /providers` };
}
