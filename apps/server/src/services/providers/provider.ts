/**
 * The provider record: a `providers` row (credentials sealed, never returned), the API shapes built from it,
 * the lookup every provider-scoped operation starts with, and the rules shared by create and update.
 */
import type { schemas } from "@pharos/contract";
import { conflict, type ErrorDetail, failIfInvalid, invalid, notFound } from "../../errors.ts";
import type { SecretBox } from "../../secrets/secret-box.ts";
import type { Database, ProviderKind } from "../../store/schema.ts";
import type { ServiceContext } from "../context.ts";

export type Provider = schemas.Provider;
export type ProviderWithModels = schemas.ProviderWithModels;
export type ProviderCredentials = schemas.ProviderCredentials;
export type ProviderRow = Database["providers"];

export const PROVIDER_KINDS: readonly ProviderKind[] = ["openai", "anthropic", "openai-compatible"];

export const isProviderKind = (name: string): name is ProviderKind =>
  (PROVIDER_KINDS as readonly string[]).includes(name);

export function toProvider(row: ProviderRow): Provider {
  return {
    id: row.id,
    provider: row.provider,
    displayName: row.displayName,
    baseUrl: row.baseUrl,
    hasCredentials: row.credentials !== null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** The provider row, if it is in the caller's workspace (else 404). Providers belong to no project. */
export async function requireProvider(ctx: ServiceContext, providerId: string): Promise<ProviderRow> {
  const provider = await ctx.db
    .selectFrom("providers")
    .selectAll()
    .where("id", "=", providerId)
    .where("workspaceId", "=", ctx.principal.workspaceId)
    .executeTakeFirst();
  if (!provider) throw notFound("Provider");
  return provider;
}

/** Display names are unique per workspace, case-insensitively: the key the unique constraint holds. */
export const displayNameKey = (displayName: string) => displayName.toLowerCase();

export const duplicateDisplayName = (displayName: string) =>
  conflict(`The workspace already has a provider named "${displayName}".`);

/** 409 when another record of the workspace already uses the name (the unique constraint catches races). */
export async function assertDisplayNameFree(ctx: ServiceContext, displayName: string, exceptId?: string) {
  let select = ctx.db
    .selectFrom("providers")
    .select("id")
    .where("workspaceId", "=", ctx.principal.workspaceId)
    .where("displayNameKey", "=", displayNameKey(displayName));
  if (exceptId !== undefined) select = select.where("id", "!=", exceptId);
  if (await select.executeTakeFirst()) throw duplicateDisplayName(displayName);
}

/**
 * The base URL to store: an absolute http(s) URL, or null (the vendor's default), which an
 * `openai-compatible` record cannot have since there is no vendor to default to.
 */
export function checkBaseUrl(kind: ProviderKind, baseUrl: string | null): string | null {
  if (baseUrl === null) {
    if (kind === "openai-compatible") throw invalid("baseUrl", "is required for openai-compatible providers");
    return null;
  }
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw invalid("baseUrl", "must be an absolute http or https URL");
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.hostname === "") {
    throw invalid("baseUrl", "must be an absolute http or https URL");
  }
  return baseUrl;
}

/**
 * 400 for credentials that cannot be sent: the key and each extra header become HTTP header values, which hold
 * no line break and no character beyond Latin-1. Checked as fetch itself checks them when a call is made, so a
 * record saved here never fails every later call (and model listing) of its workspace.
 */
export function checkCredentials(credentials: ProviderCredentials | null | undefined): void {
  if (!credentials) return;
  const problems: ErrorDetail[] = [];
  const check = (field: string, name: string, value: string) => {
    try {
      new Headers().set(name, value);
    } catch {
      problems.push({
        field,
        issue: "must be sendable as an HTTP header value: no line breaks, only Latin-1 characters",
      });
    }
  };
  check("credentials.apiKey", "Authorization", `Bearer ${credentials.apiKey}`);
  for (const [name, value] of Object.entries(credentials.headers ?? {}))
    check(`credentials.headers.${name}`, name, value);
  failIfInvalid(problems);
}

/** The credentials as stored: the whole object sealed, or null. */
export const sealCredentials = (ctx: ServiceContext, credentials: ProviderCredentials | null): string | null =>
  credentials === null ? null : ctx.secrets.seal(JSON.stringify(credentials));

/** The stored credentials opened (throws when they were sealed with another key or altered). */
export const openCredentials = (secrets: SecretBox, sealed: string): ProviderCredentials =>
  JSON.parse(secrets.open(sealed)) as ProviderCredentials;
