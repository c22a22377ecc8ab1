/**
 * The webhook endpoint: a `webhooks` row (secrets sealed), the API shapes built from it, the lookup every
 * endpoint-scoped operation starts with, and the rules shared by create and update.
 */
import { randomBytes } from "node:crypto";
import type { schemas } from "@pharos/contract";
import { type ErrorDetail, failIfInvalid, invalid, notFound } from "../../errors.ts";
import type { Database } from "../../store/schema.ts";
import type { ServiceContext } from "../context.ts";
import { fromJson, toJson } from "../json.ts";
import { requireProject } from "../projects/project.ts";
import { privateHostReason } from "./private-addresses.ts";

export type Webhook = schemas.Webhook;
export type WebhookWithSecret = schemas.WebhookWithSecret;
export type WebhookEventType = schemas.WebhookEventType;
export type WebhookRow = Database["webhooks"];

export const WEBHOOK_EVENT_TYPES: readonly WebhookEventType[] = ["create-deployment", "evaluation-run-finished"];

/** How long the previous secret keeps signing after a rotation. */
export const ROTATION_OVERLAP_MS = 12 * 60 * 60 * 1000;

/** Headers every delivery sets itself: a custom header may not replace them. */
const RESERVED_HEADERS = new Set([
  "content-type",
  "content-length",
  "host",
  "user-agent",
  "connection",
  "transfer-encoding",
  "x-webhook-signature",
  "x-webhook-event-id",
]);

export function toWebhook(row: WebhookRow, now: number): Webhook {
  return {
    id: row.id,
    projectId: row.projectId,
    name: row.name,
    url: row.url,
    events: fromJson<WebhookEventType[]>(row.events),
    headers: fromJson<Record<string, string>>(row.headers),
    previousSecretExpiresAt:
      row.previousSecret !== null && row.previousSecretExpiresAt !== null && row.previousSecretExpiresAt > now
        ? row.previousSecretExpiresAt
        : null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** The endpoint `webhookId` of the project, if the caller may use the project (404 / 403 otherwise). */
export async function requireWebhook(ctx: ServiceContext, projectId: string, webhookId: string): Promise<WebhookRow> {
  await requireProject(ctx, projectId);
  const webhook = await ctx.db
    .selectFrom("webhooks")
    .selectAll()
    .where("id", "=", webhookId)
    .where("projectId", "=", projectId)
    .executeTakeFirst();
  if (!webhook) throw notFound("Webhook");
  return webhook;
}

/** `whsec_` and 32 random bytes in base64url (43 characters). */
export const newSecret = () => `whsec_${randomBytes(32).toString("base64url")}`;

/**
 * 400 unless `url` is an absolute http(s) URL, without credentials, whose host is not `localhost` or a
 * private literal address (unless the operator allows private addresses).
 */
export function checkUrl(ctx: ServiceContext, url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid("url", "must be an absolute http or https URL");
  }
  if ((parsed.protocol !== "http:" && parsed.protocol !== "https:") || parsed.hostname === "") {
    throw invalid("url", "must be an absolute http or https URL");
  }
  if (parsed.username !== "" || parsed.password !== "") {
    throw invalid("url", "must not hold a user name or password (send credentials in a custom header)");
  }
  if (ctx.webhooks.allowPrivateAddresses) return;
  const reason = privateHostReason(parsed.hostname);
  if (reason !== undefined) {
    throw invalid(
      "url",
      `must not name a private address: ${reason} (the operator may allow them with PHAROS_WEBHOOKS_ALLOW_PRIVATE=true)`,
    );
  }
}

/**
 * 400 for custom headers a delivery could not send or that would replace its own: values must be valid HTTP
 * header values (no line break, Latin-1 only), checked as fetch checks them.
 */
export function checkHeaders(headers: Record<string, string> | undefined): void {
  if (!headers) return;
  const problems: ErrorDetail[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (RESERVED_HEADERS.has(name.toLowerCase())) {
      problems.push({ field: `headers.${name}`, issue: "is set by every delivery itself and cannot be replaced" });
      continue;
    }
    try {
      new Headers().set(name, value);
    } catch {
      problems.push({
        field: `headers.${name}`,
        issue: "must be sendable as an HTTP header value: no line breaks, only Latin-1 characters",
      });
    }
  }
  failIfInvalid(problems);
}

/** The events as stored: each once, in the enum's order. */
export const eventsToStore = (events: readonly WebhookEventType[] | undefined) =>
  toJson(WEBHOOK_EVENT_TYPES.filter((type) => events === undefined || events.includes(type)));

export const headersToStore = (headers: Record<string, string> | undefined) => toJson(headers ?? {});
